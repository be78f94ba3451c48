/** Helpers of the public-chat suites: a distributed agent through the real API, anonymous calls, SSE. */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';

import { createKb, upload, waitForDocument } from '../knowledge/knowledge-support';
import type { TestPlatform } from '../support/platform';
import type { TestUser } from '../support/users';

export { sseData } from '../chat/seed-knowledge';

export const REFUND_TEXT =
  'Refund policy. Refunds are paid within fourteen days of the request. Shipping is free for orders above fifty euros.';

/** A knowledge base with one uploaded text document, indexed by the real ingestion pipeline. */
export async function knowledgeBaseWithDocument(p: TestPlatform, owner: TestUser): Promise<string> {
  const kb = await createKb(p, owner.accessToken, { name: `Policies ${randomUUID().slice(0, 6)}` });
  const r = await upload(p, `/api/knowledge/kb/${kb.id}/documents`, owner.accessToken, {
    name: 'refund-policy.txt',
    type: 'text/plain',
    bytes: Buffer.from(REFUND_TEXT),
  });
  if (r.status !== 201) throw new Error(`document upload failed: ${r.status} ${r.text}`);
  const doc = await waitForDocument(p, owner.accessToken, kb.id, r.body.document.id);
  if (doc.processingStatus !== 'completed') throw new Error(`document failed: ${doc.error}`);
  return kb.id;
}

export interface PublishedAgent {
  id: string;
  slug: string;
}

/** draft -> publish -> distribute, through the API. */
export async function distributedAgent(
  p: TestPlatform,
  owner: TestUser,
  kbId: string,
  settings: Record<string, unknown> = {},
  distribution: Record<string, unknown> = {},
): Promise<PublishedAgent> {
  const token = owner.accessToken;
  const created = await p.http.post(
    '/api/bots',
    { name: `Public ${randomUUID().slice(0, 8)}`, knowledgeBaseIds: [kbId], isDraft: true, ...settings },
    { token },
  );
  if (created.status !== 201) throw new Error(`create agent failed: ${created.status} ${created.text}`);
  const id = created.body.bot.id as string;
  const published = await p.http.post(`/api/bots/${id}/publish`, undefined, { token });
  if (published.status !== 200) throw new Error(`publish failed: ${published.status} ${published.text}`);
  const dist = await p.http.post(`/api/bots/${id}/distribution/publish`, distribution, { token });
  if (dist.status !== 200) throw new Error(`distribute failed: ${dist.status} ${dist.text}`);
  return { id, slug: dist.body.slug };
}

export const base = (slug: string) => `/api/public/agents/${slug}`;

export async function startConversation(p: TestPlatform, slug: string, anonymousId: string): Promise<string> {
  const r = await p.http.post(`${base(slug)}/conversations`, { anonymousId });
  if (r.status !== 200) throw new Error(`start conversation failed: ${r.status} ${r.text}`);
  return r.body.data.conversationId;
}

/** Anonymous multipart upload (no token). */
export async function uploadAttachment(
  p: TestPlatform,
  slug: string,
  anonymousId: string,
  file: { name: string; type: string; bytes: Buffer },
) {
  const form = new FormData();
  form.append('file', new Blob([file.bytes], { type: file.type }), file.name);
  const res = await fetch(`${p.gatewayUrl}${base(slug)}/attachments?anonymousId=${anonymousId}`, { method: 'POST', body: form });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** A streaming request through the gateway; the caller reads `res` and destroys `req` when done. */
export async function openStream(p: TestPlatform, method: 'GET' | 'POST', path: string, body?: unknown) {
  const { hostname, port } = new URL(p.gatewayUrl);
  const headers: Record<string, string> = body === undefined ? {} : { 'content-type': 'application/json' };
  const req = http.request({ host: hostname, port: Number(port), method, path, agent: false, headers });
  req.end(body === undefined ? undefined : JSON.stringify(body));
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  res.setEncoding('utf8');
  return { req, res };
}

/** Reads an SSE response until `done(text)` says so (or the stream ends). */
export async function readUntil(res: http.IncomingMessage, done: (text: string) => boolean): Promise<string> {
  let text = '';
  for await (const chunk of res) {
    text += chunk as string;
    if (done(text)) break;
  }
  return text;
}

export async function waitFor<T>(probe: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Accumulates an SSE response as it arrives (poll `text` with waitFor). */
export function collect(res: http.IncomingMessage): { text: string } {
  const state = { text: '' };
  res.on('data', (chunk: string) => {
    state.text += chunk;
  });
  return state;
}
