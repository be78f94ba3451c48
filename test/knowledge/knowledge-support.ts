import type { TestPlatform } from '../support/platform';

/** Multipart upload through the gateway (the JSON client does not do multipart). */
export async function upload(
  p: TestPlatform,
  path: string,
  token: string,
  file: { name: string; bytes: Buffer; type?: string },
  field = 'file',
) {
  const form = new FormData();
  form.append(field, new Blob([file.bytes], { type: file.type ?? 'application/octet-stream' }), file.name);
  const res = await fetch(`${p.gatewayUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, body, text };
}

export async function createKb(p: TestPlatform, token: string, body: Record<string, unknown> = {}) {
  const r = await p.http.post('/api/knowledge/kb', { name: 'Handbook', ...body }, { token });
  if (r.status !== 201) throw new Error(`create KB failed: ${r.status} ${r.text}`);
  return r.body.knowledgeBase as { id: string; name: string; settings: any };
}

export async function createAgent(p: TestPlatform, token: string, name = 'Helper') {
  const r = await p.http.post('/api/bots', { name, knowledgeBaseIds: [], isDraft: true }, { token });
  if (r.status !== 201) throw new Error(`create agent failed: ${r.status} ${r.text}`);
  return r.body.bot as { id: string; name: string };
}

/** Polls the document until it leaves pending/processing (the worker runs in the same process). */
export async function waitForDocument(p: TestPlatform, token: string, kbId: string, docId: string, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const r = await p.http.get(`/api/knowledge/kb/${kbId}/documents/${docId}`, { token });
    if (r.status !== 200) throw new Error(`get document failed: ${r.status} ${r.text}`);
    const doc = r.body.document;
    if (doc.processingStatus === 'completed' || doc.processingStatus === 'failed') return doc;
    if (Date.now() > until) throw new Error(`document ${docId} still ${doc.processingStatus}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const expectError = (r: { status: number; body: any }, status: number, error?: string) => {
  expect({ status: r.status, ...(error ? { error: r.body?.error } : {}) }).toEqual({ status, ...(error ? { error } : {}) });
  expect(typeof r.body?.message).toBe('string');
};
