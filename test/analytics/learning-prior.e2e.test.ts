/**
 * The learning prior end to end (issue 12): a fixed query ranks two close chunks; visitors of the public agent
 * get answers from the lower one and rate them up (public feedback endpoint); after a refresh the prior lifts
 * it above the other; disabling the prior restores the plain ranking exactly.
 */
import { randomUUID } from 'node:crypto';

import { seedDocument } from '../chat/seed-knowledge';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const QUERY = 'warranty claims handled within ten days';
const DOCS: Record<string, { text: string; tail: string }> = {
  'desk.txt': { text: 'Warranty claims are handled within ten days by the support desk.', tail: 'support desk' },
  'receipt.txt': { text: 'Warranty claims are handled within ten days after the receipt check.', tail: 'receipt check' },
};
let p: TestPlatform;
let owner: TestUser;
let kbId: string;
let slug: string;

const search = async () => {
  const r = await p.http.post('/api/knowledge/search', { knowledgeBaseIds: [kbId], query: QUERY }, { token: owner.accessToken });
  expect(r.status).toBe(200);
  return (r.body.results as { score: number; metadata: { documentTitle: string } }[]).map((x) => ({
    title: x.metadata.documentTitle,
    score: x.score,
  }));
};

/** A visitor asks about `tail`, then rates the answer. */
async function visitorRates(tail: string, rating: 'up' | 'down') {
  const anonymousId = randomUUID();
  const start = await p.http.post(`/api/public/agents/${slug}/conversations`, { anonymousId });
  expect(start.status).toBe(200);
  const conversationId = start.body.data.conversationId;
  const answer = await p.http.post(`/api/public/agents/${slug}/chat`, { message: `What about the ${tail}?`, conversationId, anonymousId });
  expect(answer.status).toBe(200);
  const messages = await p.http.get(`/api/public/agents/${slug}/conversations/${conversationId}/messages?anonymousId=${anonymousId}`);
  const last = messages.body.messages.filter((m: any) => m.role === 'assistant').pop();
  const path = `/api/public/agents/${slug}/conversations/${conversationId}/messages/${last.id}/feedback`;
  expect((await p.http.post(path, { rating, anonymousId: randomUUID() })).status).toBe(404); // another visitor
  const r = await p.http.post(path, { rating, anonymousId });
  expect(r.status).toBe(200);
  expect(r.body.feedback).toMatchObject({ messageId: last.id, rating });
}

beforeAll(async () => {
  p = await startTestPlatform({ EMBEDDINGS_PROVIDER: 'local', VISION_PROVIDER: 'none', TRANSCRIPTION_PROVIDER: 'none' });
  owner = await registerUser(p.http, { label: 'prior-owner' });
  const kb = await p.http.post('/api/knowledge/kb', { name: 'Warranty' }, { token: owner.accessToken });
  kbId = kb.body.knowledgeBase.id;
  for (const [title, d] of Object.entries(DOCS)) await seedDocument(p, owner.orgId, kbId, title, [d.text]);
  const bot = await p.http.post(
    '/api/bots',
    { name: 'Warranty help', knowledgeBaseIds: [kbId], isDraft: false },
    { token: owner.accessToken },
  );
  const published = await p.http.post(`/api/bots/${bot.body.bot.id}/distribution/publish`, {}, { token: owner.accessToken });
  expect(published.status).toBe(200);
  slug = published.body.slug;
});
afterAll(async () => {
  await p?.close();
});

it('feedback lifts a chunk through the prior; disabling the prior restores the plain ranking', async () => {
  const plain = await search();
  expect(plain.map((r) => r.title).sort()).toEqual(Object.keys(DOCS).sort());
  const [first, second] = plain;
  expect(first.score).toBeGreaterThanOrEqual(second.score);

  for (let i = 0; i < 3; i++) await visitorRates(DOCS[second.title].tail, 'up');
  const refreshed = await p.http.post(`/api/knowledge/kb/${kbId}/learning-prior/refresh`, undefined, { token: owner.accessToken });
  expect(refreshed.status).toBe(200);
  expect(refreshed.body.documents).toBeGreaterThanOrEqual(1);

  const learned = await search();
  expect(learned.map((r) => r.title)).toEqual([second.title, first.title]);
  const readiness = (await p.http.get(`/api/knowledge/kb/${kbId}/analytics?section=learning`, { token: owner.accessToken })).body
    .learningReadiness;
  expect(readiness).toMatchObject({ priorEnabled: true, priorActive: true });

  const off = await p.http.patch(`/api/knowledge/kb/${kbId}/learning-prior`, { enabled: false }, { token: owner.accessToken });
  expect(off.status).toBe(200);
  expect(off.body).toEqual({ enabled: false });
  expect(await search()).toEqual(plain);
  const offReadiness = (await p.http.get(`/api/knowledge/kb/${kbId}/analytics?section=learning`, { token: owner.accessToken })).body
    .learningReadiness;
  expect(offReadiness).toMatchObject({ priorEnabled: false, priorActive: false });

  expect((await p.http.patch(`/api/knowledge/kb/${kbId}/learning-prior`, { enabled: true }, { token: owner.accessToken })).body).toEqual({
    enabled: true,
  });
  expect((await search()).map((r) => r.title)).toEqual([second.title, first.title]);
});
