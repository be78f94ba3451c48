/**
 * Decompression bombs and oversized output through the gateway, on the platform as `npm start` runs it (heavy
 * work in worker threads): a bomb fails its one document, public attachment or extract-text call with the
 * reason, and the limits answer 413 with the spec's error string.
 */
import { randomUUID } from 'node:crypto';

import { createKb, expectError, upload, waitForDocument } from '../knowledge/knowledge-support';
import { distributedAgent, knowledgeBaseWithDocument, uploadAttachment, waitFor } from '../public-chat/public-support';
import { docxBomb, pdfBomb } from '../support/bombs';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const MAX_TEXT_CHARS = 20_000;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

let p: TestPlatform;
let owner: TestUser;
let docx: Buffer;
let pdf: Buffer;

beforeAll(async () => {
  docx = docxBomb(24);
  pdf = pdfBomb(100);
  p = await startTestPlatform({ EXTRACTION_MAX_TEXT_CHARS: String(MAX_TEXT_CHARS) });
  owner = await registerUser(p.http, { label: 'bombs' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

it('generates real bombs: small files whose one compressed part unpacks past 20 MB', () => {
  expect(docx.length).toBeLessThan(200_000);
  expect(pdf.length).toBeLessThan(200_000);
});

describe('a bomb uploaded as a document fails that document with the reason', () => {
  it.each([
    ['bomb.docx', DOCX, () => docx, 'word/document.xml'],
    ['bomb.pdf', 'application/pdf', () => pdf, 'stream 1'],
  ])('%s', async (name, type, bytes, part) => {
    const kb = await createKb(p, owner.accessToken, { name: `Bombs ${randomUUID().slice(0, 6)}` });
    const r = await upload(p, `/api/knowledge/kb/${kb.id}/documents`, owner.accessToken, { name, type, bytes: bytes() });
    expect(r.status).toBe(201);
    const doc = await waitForDocument(p, owner.accessToken, kb.id, r.body.document.id);
    expect(doc.processingStatus).toBe('failed');
    expect(doc.error).toContain(`"${name}" is too large when unpacked (${part})`);
    expect(doc.chunkCount).toBe(0);
  });
});

describe('extract-text', () => {
  it.each([
    ['bomb.docx', DOCX, () => docx],
    ['bomb.pdf', 'application/pdf', () => pdf],
  ])('answers 413 for %s, naming the reason', async (name, type, bytes) => {
    const r = await upload(p, '/api/knowledge/extract-text', owner.accessToken, { name, type, bytes: bytes() });
    expectError(r, 413, 'Payload Too Large');
    expect(r.body.message).toContain('too large when unpacked');
  });

  it('answers 413 past its output limit, and 200 just under it', async () => {
    const words = (chars: number) => 'lorem ipsum '.repeat(Math.ceil(chars / 12)).slice(0, chars - 1) + '.';
    const over = await upload(p, '/api/knowledge/extract-text', owner.accessToken, {
      name: 'long.txt',
      type: 'text/plain',
      bytes: Buffer.from(words(MAX_TEXT_CHARS + 1)),
    });
    expectError(over, 413, 'Payload Too Large');
    expect(over.body.message).toBe(`The text extracted from "long.txt" is longer than the ${MAX_TEXT_CHARS} characters allowed`);

    const under = await upload(p, '/api/knowledge/extract-text', owner.accessToken, {
      name: 'long.txt',
      type: 'text/plain',
      bytes: Buffer.from(words(MAX_TEXT_CHARS)),
    });
    expect(under.status).toBe(200);
    expect(under.body.text).toHaveLength(MAX_TEXT_CHARS);
  });
});

it('a bomb sent by an anonymous visitor fails that attachment with the reason', async () => {
  const kbId = await knowledgeBaseWithDocument(p, owner);
  const agent = await distributedAgent(p, owner, kbId, { fileUploadsEnabled: true });
  const visitor = randomUUID();
  const r = await uploadAttachment(p, agent.slug, visitor, { name: 'bomb.pdf', type: 'application/pdf', bytes: pdf });
  expect(r.status).toBe(200);
  const { id, accessToken } = r.body.attachment;
  const done = await waitFor(async () => {
    const s = await p.http.get(`/api/public/agents/${agent.slug}/attachments/${id}?anonymousId=${visitor}`, {
      headers: { 'x-attachment-token': accessToken },
    });
    return ['completed', 'failed'].includes(s.body.attachment?.processingStatus) && s.body.attachment;
  }, 'the attachment to be processed');
  expect(done.processingStatus).toBe('failed');
  // the view does not carry the reason (spec 2.9); the stored attachment does
  expect((await p.store.repos.attachments.findById(id))?.error).toContain('"bomb.pdf" is too large when unpacked');
});
