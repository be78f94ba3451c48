/**
 * The public lane's work budget in thread-seconds: extraction is charged with the thread time the pool measured
 * (told through the loader's work attribution), and a visitor or address past its budget is refused with 429
 * before any work starts, at upload (before the body is read) and for a job queued in a burst before it.
 */
import { randomUUID } from 'node:crypto';

import { InProcessRateLimitStore } from '../../adapters/memory/in-process.rate-limit-store';
import type { Agent } from '../../core/agents/agent';
import type { Attachment, AttachmentRepository, AttachmentStatus } from '../../core/attachments/attachment';
import type { AttachmentDeps } from '../../core/attachments/attachment-deps';
import { extractAttachment } from '../../core/attachments/extract-attachment';
import type { LoadInput } from '../../core/ports/document-loader';
import type { WorkAttribution } from '../../core/ports/heavy-work';
import type { Store } from '../../core/ports/store';
import { admitPublicUpload } from '../../core/public-chat/public-attachments';
import { DEFAULT_PUBLIC_CHAT_LIMITS, type PublicChatDeps } from '../../core/public-chat/public-chat-deps';
import { ipKeyOf, rateLimitedWorkBudget } from '../../core/public-chat/work-budget';

class MemoryAttachments implements AttachmentRepository {
  rows = new Map<string, Attachment>();
  async create(a: Attachment) {
    this.rows.set(a.id, { ...a });
  }
  async findById(id: string) {
    return this.rows.get(id) ?? null;
  }
  async transition(id: string, from: AttachmentStatus[], to: AttachmentStatus, patch: Partial<Attachment> = {}) {
    const a = this.rows.get(id);
    if (!a || !from.includes(a.processingStatus)) return null;
    Object.assign(a, patch, { processingStatus: to });
    return { ...a };
  }
}

const ORG = randomUUID();
const VISITOR = randomUUID();
const IP = '203.0.113.7';
/** What the pool measured for each extraction of the fake loader (thread-ms). */
const TASK_MS = 700;

function setup() {
  const rateLimits = new InProcessRateLimitStore();
  const attachments = new MemoryAttachments();
  const loads: WorkAttribution[] = [];
  const deps: AttachmentDeps = {
    store: { repos: { attachments } } as unknown as Store,
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: () => 'x' },
    blobs: { get: async () => Buffer.from('%PDF-1.4') } as unknown as AttachmentDeps['blobs'],
    queue: {} as AttachmentDeps['queue'],
    loader: {
      detect: () => ({ mimeType: 'application/pdf', kind: 'pdf' }),
      // the pooled loader: the pool tells the attribution the thread time the task held
      load: async (_input: LoadInput, work?: WorkAttribution) => {
        loads.push(work!);
        work?.charge?.(TASK_MS);
        return { text: 'text', mimeType: 'application/pdf', images: [], metadata: {} };
      },
    },
    settings: { maxBytes: 1_000_000, inlineTextMaxBytes: 100, textMaxChars: 100 },
    // 1 thread-second per visitor, 10 per address, in 10 minutes
    workBudget: rateLimitedWorkBudget(rateLimits, { visitorSeconds: 1, ipSeconds: 10, windowSeconds: 600 }),
  };
  const publicDeps = {
    attachments: deps,
    rateLimits,
    limits: DEFAULT_PUBLIC_CHAT_LIMITS,
    chat: {},
  } as unknown as PublicChatDeps;
  const agent = { id: randomUUID(), organizationId: ORG, fileUploadsEnabled: true } as Agent;
  const pending = () => {
    const a: Attachment = {
      id: randomUUID(),
      organizationId: ORG,
      agentId: agent.id,
      anonymousId: VISITOR,
      tokenHash: 'h',
      fileType: 'pdf',
      originalFilename: 'a.pdf',
      fileSizeBytes: 8,
      contentType: 'application/pdf',
      processingStatus: 'pending',
      blobKey: 'k',
      extractedText: null,
      error: null,
      createdAt: '',
      updatedAt: '',
      processedAt: null,
    };
    attachments.rows.set(a.id, a);
    return a;
  };
  /** Thread-ms counted on a key: what a peek under a huge limit says is gone. */
  const used = async (key: string) => 1e9 - (await rateLimits.peek(key, 1e9, 600)).remaining;
  return { deps, publicDeps, agent, pending, loads, used, rateLimits };
}

describe('public work budget (thread-seconds)', () => {
  it('charges the measured thread time to the visitor and the address, then refuses with 429 before any work', async () => {
    const { deps, publicDeps, agent, pending, loads, used, rateLimits } = setup();
    const ipKey = ipKeyOf(IP)!;
    // a burst: three uploads admitted before any of their work was measured
    const burst = [];
    for (let i = 0; i < 3; i++) {
      await admitPublicUpload(publicDeps, agent, VISITOR, IP);
      burst.push(pending());
    }
    expect(await extractAttachment(deps, burst[0].id, { finalAttempt: true, ipKey })).toMatchObject({ processingStatus: 'completed' });
    expect(await extractAttachment(deps, burst[1].id, { finalAttempt: true, ipKey })).toMatchObject({ processingStatus: 'completed' });
    // the work ran in the organization's share of the pool, as this visitor
    expect(loads.map((w) => [w.tenant, w.party])).toEqual([
      [`org:${ORG}`, `visitor:${VISITOR}`],
      [`org:${ORG}`, `visitor:${VISITOR}`],
    ]);
    // accounting: 2 x 700 thread-ms on each counter
    expect(await used(`public:work:visitor:${VISITOR}`)).toBe(2 * TASK_MS);
    expect(await used(`public:work:ip:${ipKey}`)).toBe(2 * TASK_MS);

    // past 1 thread-second: the third, queued in the burst, fails without being parsed
    const third = await extractAttachment(deps, burst[2].id, { finalAttempt: true, ipKey });
    expect(third).toMatchObject({ processingStatus: 'failed', error: expect.stringContaining('Too much file processing') });
    // and the next upload is a 429 with Retry-After before its body is read
    await expect(admitPublicUpload(publicDeps, agent, VISITOR, IP)).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { retryAfterSeconds: expect.any(Number), budget: 'thread-seconds' },
    });
    expect(loads).toHaveLength(2); // no work started for the refused ones
    expect(await used(`public:work:visitor:${VISITOR}`)).toBe(2 * TASK_MS); // nor charged

    // another visitor behind the same address still has its own budget (the address's is larger)
    await expect(admitPublicUpload(publicDeps, agent, randomUUID(), IP)).resolves.toEqual(expect.any(String));
    await rateLimits.close();
  });
});
