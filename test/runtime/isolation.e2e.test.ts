/**
 * One hostile file does not hold anyone else: with the unpacked-size guard opened wide, a DOCX bomb keeps its
 * worker thread busy (mammoth parsing 24 MB of XML) until the time bound stops it. Requests made meanwhile by
 * another organization get their answers while that document is still processing, and the document then
 * fails with the time bound as its reason. Not a timing test: it checks the order of events only.
 */
import { randomUUID } from 'node:crypto';

import { createKb, upload, waitForDocument } from '../knowledge/knowledge-support';
import { waitFor } from '../public-chat/public-support';
import { docxBomb } from '../support/bombs';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const TIMEOUT_MS = 5_000;
let p: TestPlatform;
let attacker: TestUser;
let bystander: TestUser;

beforeAll(async () => {
  p = await startTestPlatform({
    HEAVY_WORK_TIMEOUT_MS: String(TIMEOUT_MS),
    // memory opened wide too: on a fast machine mammoth reached the 512 MB default before the time bound
    HEAVY_WORK_MEMORY_MB: '4096',
    EXTRACTION_MAX_UNPACKED_BYTES: String(512 * 1024 * 1024),
    EXTRACTION_MAX_TEXT_CHARS: String(512 * 1024 * 1024),
  });
  attacker = await registerUser(p.http, { label: 'attacker' });
  bystander = await registerUser(p.http, { label: 'bystander' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

it('answers other requests while a bomb is parsed, then fails the bomb with the time bound', async () => {
  const kb = await createKb(p, attacker.accessToken, { name: `Bombs ${randomUUID().slice(0, 6)}` });
  const r = await upload(p, `/api/knowledge/kb/${kb.id}/documents`, attacker.accessToken, {
    name: 'slow.docx',
    type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    bytes: docxBomb(24),
  });
  expect(r.status).toBe(201);
  const docPath = `/api/knowledge/kb/${kb.id}/documents/${r.body.document.id}`;
  const status = async () => (await p.http.get(docPath, { token: attacker.accessToken })).body.document.processingStatus as string;
  await waitFor(async () => (await status()) === 'processing' && p.infra.knowledge.heavyWork.stats().running > 0, 'the bomb to start');

  const answers: number[] = [];
  for (let i = 0; i < 5; i++) answers.push((await p.http.get('/api/auth/me', { token: bystander.accessToken })).status);
  expect(answers).toEqual([200, 200, 200, 200, 200]);
  expect(await status()).toBe('processing'); // the bomb's task had not ended when those answers came

  const doc = await waitForDocument(p, attacker.accessToken, kb.id, r.body.document.id, 120_000);
  expect(doc.processingStatus).toBe('failed');
  expect(doc.error).toBe(`"slow.docx" could not be processed: it took longer than the ${TIMEOUT_MS} ms allowed and was stopped`);
  expect((await p.http.get('/api/auth/me', { token: bystander.accessToken })).status).toBe(200);
});
