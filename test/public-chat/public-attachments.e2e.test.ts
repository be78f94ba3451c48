/**
 * Public attachments end to end through the gateway (spec 2.9, 4.5, 5.4): upload checks (403, 413, 415),
 * the attachment object, inline and queued text extraction, and the chat pipeline's use of the extracted
 * text, only with the right access token and visitor.
 */
import { randomUUID } from 'node:crypto';

import { sha256Hex } from '../../core/shared/hash';
import { ScriptedModel } from '../chat/fakes';
import { docxOf, pdfOf } from '../knowledge/file-fixtures';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import {
  base,
  distributedAgent,
  knowledgeBaseWithDocument,
  type PublishedAgent,
  startConversation,
  uploadAttachment,
  waitFor,
} from './public-support';

const MAX_BYTES = 300_000;
const echo = new ScriptedModel('I read your file.', { prefix: 'test/echo' });
let p: TestPlatform;
let owner: TestUser;
let kbId: string;
let uploads: PublishedAgent;

beforeAll(async () => {
  p = await startTestPlatform({ PUBLIC_ATTACHMENT_MAX_BYTES: String(MAX_BYTES) }, { chat: { chatModels: [echo] } });
  const template = (await p.store.repos.models.findById('openai/gpt-4o-mini'))!;
  await p.store.repos.models.upsert([
    { ...template, id: 'test/echo', name: 'Echo', provider: 'test', isFree: true, promptPricePerToken: 0, completionPricePerToken: 0 },
  ]);
  owner = await registerUser(p.http, { label: 'attach-owner' });
  kbId = await knowledgeBaseWithDocument(p, owner);
  uploads = await distributedAgent(p, owner, kbId, { fileUploadsEnabled: true, model: 'test/echo' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const NOTE = 'Order 7781 arrived with a cracked teapot lid.';
const textFile = (text = NOTE) => ({ name: 'note.txt', type: 'text/plain', bytes: Buffer.from(text) });
const chat = (agent: PublishedAgent, body: Record<string, unknown>) => p.http.post(`${base(agent.slug)}/chat`, body);
const systemMessageOfLastCall = () => echo.requests[echo.requests.length - 1].messages[0].content;

describe('uploading', () => {
  it('returns the attachment object with a one-time access token (only its hash is stored); small text is extracted at once', async () => {
    const visitor = randomUUID();
    const r = await uploadAttachment(p, uploads.slug, visitor, textFile());
    expect(r.status).toBe(200);
    expect(r.body.attachment).toEqual({
      id: expect.any(String),
      accessToken: expect.any(String),
      fileType: 'text',
      originalFilename: 'note.txt',
      fileSizeBytes: Buffer.byteLength(NOTE),
      contentType: 'text/plain',
      processingStatus: 'completed',
      createdAt: expect.any(String),
    });
    const row = await p.infra.db.knex('attachments').where({ id: r.body.attachment.id }).first();
    expect(row.token_hash).toBe(sha256Hex(r.body.attachment.accessToken));
    expect(JSON.stringify(row)).not.toContain(r.body.attachment.accessToken);
    expect(row).toMatchObject({ anonymous_id: visitor, agent_id: uploads.id, extracted_text: NOTE });
  });

  it('refuses: uploads disabled 403, bytes not matching the declared type 415, a kind that is not allowed 415, too large 413, no anonymousId 400', async () => {
    const closed = await distributedAgent(p, owner, kbId);
    const visitor = randomUUID();
    const disabled = await uploadAttachment(p, closed.slug, visitor, textFile());
    expect(disabled.status).toBe(403);
    expect(disabled.body.error).toBe('Forbidden');

    const fakePng = await uploadAttachment(p, uploads.slug, visitor, {
      name: 'photo.png',
      type: 'image/png',
      bytes: Buffer.from('this is not a picture at all'),
    });
    expect(fakePng.status).toBe(415);
    const fakePdf = await uploadAttachment(p, uploads.slug, visitor, {
      name: 'scan.pdf',
      type: 'application/pdf',
      bytes: Buffer.from('plain words, no PDF header'),
    });
    expect(fakePdf.status).toBe(415);
    const word = await uploadAttachment(p, uploads.slug, visitor, {
      name: 'letter.docx',
      type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      bytes: await docxOf(['Dear support']),
    });
    expect(word.status).toBe(415);
    expect(word.body.message).toMatch(/not an allowed attachment kind/);

    const big = await uploadAttachment(p, uploads.slug, visitor, textFile('x'.repeat(MAX_BYTES + 1)));
    expect(big.status).toBe(413);

    const form = new FormData();
    form.append('file', new Blob([Buffer.from(NOTE)], { type: 'text/plain' }), 'note.txt');
    const anonymous = await fetch(`${p.gatewayUrl}${base(uploads.slug)}/attachments`, { method: 'POST', body: form });
    expect(anonymous.status).toBe(400);
    expect(await p.infra.db.knex('attachments').where({ anonymous_id: visitor }).count({ n: '*' }).first()).toEqual({ n: 0 });
  });
});

describe('attachments in chat', () => {
  it('gives the model the extracted text with the right access token; a wrong token or another visitor is 400; uploads disabled is 403', async () => {
    const alice = randomUUID();
    const { attachment } = (await uploadAttachment(p, uploads.slug, alice, textFile())).body;
    const conversationId = await startConversation(p, uploads.slug, alice);

    const ok = await chat(uploads, {
      message: 'What is wrong with my order?',
      conversationId,
      anonymousId: alice,
      attachments: [{ id: attachment.id, accessToken: attachment.accessToken }],
    });
    expect(ok.status).toBe(200);
    expect(ok.body.response).toBe(echo.reply);
    expect(systemMessageOfLastCall()).toContain(NOTE);
    const messages = await p.http.get(`${base(uploads.slug)}/conversations/${conversationId}/messages?anonymousId=${alice}`);
    expect(messages.body.messages[0]).toMatchObject({
      role: 'user',
      attachments: [{ id: attachment.id, filename: 'note.txt', contentType: 'text/plain' }],
    });

    const calls = echo.requests.length;
    const wrong = await chat(uploads, {
      message: 'And now?',
      conversationId,
      anonymousId: alice,
      attachments: [{ id: attachment.id, accessToken: 'guessed-token' }],
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('Validation Error');
    const unknown = await chat(uploads, {
      message: 'And now?',
      conversationId,
      anonymousId: alice,
      attachments: [{ id: randomUUID(), accessToken: attachment.accessToken }],
    });
    expect(unknown.status).toBe(400);

    // Bob holds Alice's id and token but is another visitor.
    const bob = randomUUID();
    const bobs = await startConversation(p, uploads.slug, bob);
    const stolen = await chat(uploads, {
      message: 'What is in it?',
      conversationId: bobs,
      anonymousId: bob,
      attachments: [{ id: attachment.id, accessToken: attachment.accessToken }],
    });
    expect(stolen.status).toBe(400);

    // Another agent of the same organization does not resolve it either.
    const other = await distributedAgent(p, owner, kbId, { fileUploadsEnabled: true, model: 'test/echo' });
    const otherConversation = await startConversation(p, other.slug, alice);
    expect(
      (
        await chat(other, {
          message: 'Read it',
          conversationId: otherConversation,
          anonymousId: alice,
          attachments: [{ id: attachment.id, accessToken: attachment.accessToken }],
        })
      ).status,
    ).toBe(400);
    expect(echo.requests.length).toBe(calls);

    const closed = await distributedAgent(p, owner, kbId);
    const closedConversation = await startConversation(p, closed.slug, alice);
    const refused = await chat(closed, {
      message: 'Read it',
      conversationId: closedConversation,
      anonymousId: alice,
      attachments: [{ id: attachment.id, accessToken: attachment.accessToken }],
    });
    expect(refused.status).toBe(403);
    expect(
      (
        await chat(uploads, {
          message: 'Six',
          conversationId,
          anonymousId: alice,
          attachments: Array.from({ length: 6 }, () => ({ id: attachment.id, accessToken: attachment.accessToken })),
        })
      ).status,
    ).toBe(400);
  });

  it('extracts a PDF on the queue (pending, then completed), readable with the token only, then used in chat', async () => {
    const visitor = randomUUID();
    const pdf = await pdfOf(['Warranty card.', 'The kettle warranty lasts thirty-six months from delivery.']);
    const r = await uploadAttachment(p, uploads.slug, visitor, { name: 'warranty.pdf', type: 'application/pdf', bytes: pdf });
    expect(r.status).toBe(200);
    expect(r.body.attachment).toMatchObject({ fileType: 'pdf', contentType: 'application/pdf', processingStatus: 'pending' });
    const { id, accessToken } = r.body.attachment;
    const path = `${base(uploads.slug)}/attachments/${id}?anonymousId=${visitor}`;

    const done = await waitFor(async () => {
      const s = await p.http.get(path, { headers: { 'x-attachment-token': accessToken } });
      expect(s.status).toBe(200);
      return s.body.attachment.processingStatus === 'completed' || s.body.attachment.processingStatus === 'failed'
        ? s.body.attachment
        : null;
    }, 'PDF extraction');
    expect(done).toMatchObject({ id, processingStatus: 'completed' });
    expect(done).not.toHaveProperty('accessToken');
    expect((await p.http.get(path, { headers: { 'x-attachment-token': 'wrong' } })).status).toBe(404);
    expect((await p.http.get(path)).status).toBe(404);
    expect(
      (
        await p.http.get(`${base(uploads.slug)}/attachments/${id}?anonymousId=${randomUUID()}`, {
          headers: { 'x-attachment-token': accessToken },
        })
      ).status,
    ).toBe(404);

    const conversationId = await startConversation(p, uploads.slug, visitor);
    const answer = await chat(uploads, {
      message: 'How long is the warranty?',
      conversationId,
      anonymousId: visitor,
      attachments: [{ id, accessToken }],
    });
    expect(answer.status).toBe(200);
    expect(systemMessageOfLastCall()).toContain('thirty-six months');
  });
});
