/** Attachment extraction states and the resolver's rules, over an in-memory repository (no HTTP, no database). */
import { randomUUID } from 'node:crypto';

import type { Attachment, AttachmentRepository, AttachmentStatus } from '../../core/attachments/attachment';
import type { AttachmentDeps } from '../../core/attachments/attachment-deps';
import { StoredAttachmentResolver } from '../../core/attachments/attachment-resolver';
import { extractAttachment } from '../../core/attachments/extract-attachment';
import type { LoadedDocument } from '../../core/ports/document-loader';
import type { Store } from '../../core/ports/store';
import { DomainError } from '../../core/shared/errors';
import { sha256Hex } from '../../core/shared/hash';

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
const AGENT = randomUUID();
const VISITOR = randomUUID();
const TOKEN = 'secret-token';

function setup(load: () => Promise<LoadedDocument>) {
  const attachments = new MemoryAttachments();
  const store = { repos: { attachments }, transaction: async (w: (r: unknown) => unknown) => w({ attachments }) } as unknown as Store;
  const deps: AttachmentDeps = {
    store,
    clock: { now: () => new Date() },
    ids: { uuid: () => randomUUID(), secret: () => 'x' },
    blobs: { get: async () => Buffer.from('bytes') } as unknown as AttachmentDeps['blobs'],
    queue: {} as AttachmentDeps['queue'],
    loader: { detect: () => ({ mimeType: 'text/plain', kind: 'text' }), load },
    settings: { maxBytes: 1000, inlineTextMaxBytes: 100, textMaxChars: 10 },
  };
  const a: Attachment = {
    id: randomUUID(),
    organizationId: ORG,
    agentId: AGENT,
    anonymousId: VISITOR,
    tokenHash: sha256Hex(TOKEN),
    fileType: 'text',
    originalFilename: 'a.txt',
    fileSizeBytes: 5,
    contentType: 'text/plain',
    processingStatus: 'pending',
    blobKey: 'k',
    extractedText: null,
    error: null,
    createdAt: '',
    updatedAt: '',
    processedAt: null,
  };
  attachments.rows.set(a.id, a);
  return { deps, attachments, a, resolver: new StoredAttachmentResolver(store) };
}

const loaded = (text: string): LoadedDocument => ({ text, mimeType: 'text/plain', images: [], metadata: {} });

describe('extractAttachment', () => {
  it('completes with the text cut to textMaxChars, and leaves a finished attachment alone', async () => {
    const { deps, a } = setup(async () => loaded('0123456789abcdef'));
    expect(await extractAttachment(deps, a.id, { finalAttempt: false })).toMatchObject({
      processingStatus: 'completed',
      extractedText: '0123456789',
    });
    expect(await extractAttachment(deps, a.id, { finalAttempt: false })).toMatchObject({ processingStatus: 'completed' });
  });

  it('puts a transient failure back to pending and rethrows before the last attempt; fails it on the last', async () => {
    const { deps, a, attachments } = setup(async () => {
      throw new DomainError('UPSTREAM_FAILED', 'provider down');
    });
    await expect(extractAttachment(deps, a.id, { finalAttempt: false })).rejects.toThrow('provider down');
    expect(attachments.rows.get(a.id)!.processingStatus).toBe('pending');
    expect(await extractAttachment(deps, a.id, { finalAttempt: true })).toMatchObject({
      processingStatus: 'failed',
      error: 'provider down',
    });
  });

  it('fails at once on a permanent error (no text, no model configured)', async () => {
    const { deps, a } = setup(async () => {
      throw new DomainError('NOT_CONFIGURED', 'Image text extraction needs a vision-capable model; none is configured');
    });
    expect(await extractAttachment(deps, a.id, { finalAttempt: false })).toMatchObject({
      processingStatus: 'failed',
      error: expect.stringMatching(/vision/),
    });
  });
});

describe('StoredAttachmentResolver', () => {
  const ref = (a: Attachment, over: Record<string, string> = {}) => ({
    organizationId: ORG,
    agentId: AGENT,
    id: a.id,
    accessToken: TOKEN,
    ...over,
  });

  it('resolves only with the token, agent, organization and (when bound) visitor of the upload', async () => {
    const { deps, a, resolver } = setup(async () => loaded('hello'));
    await extractAttachment(deps, a.id, { finalAttempt: true });
    expect(await resolver.resolve(ref(a))).toEqual({ id: a.id, filename: 'a.txt', mimeType: 'text/plain', text: 'hello' });
    expect(await resolver.forVisitor(VISITOR).resolve(ref(a))).not.toBeNull();
    expect(await resolver.forVisitor(randomUUID()).resolve(ref(a))).toBeNull();
    expect(await resolver.resolve(ref(a, { accessToken: 'nope' }))).toBeNull();
    expect(await resolver.resolve(ref(a, { agentId: randomUUID() }))).toBeNull();
    expect(await resolver.resolve(ref(a, { organizationId: randomUUID() }))).toBeNull();
    expect(await resolver.resolve(ref(a, { id: 'not-a-uuid' }))).toBeNull();
  });

  it('answers 409 while the text is being extracted, and empty text once extraction failed', async () => {
    const { deps, a, resolver } = setup(async () => {
      throw new DomainError('VALIDATION', 'No extractable text');
    });
    await expect(resolver.resolve(ref(a))).rejects.toMatchObject({ code: 'INVALID_STATE' });
    await extractAttachment(deps, a.id, { finalAttempt: true });
    expect(await resolver.resolve(ref(a))).toMatchObject({ text: '' });
  });
});
