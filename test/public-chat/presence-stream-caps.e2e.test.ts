/**
 * Open presence streams are capped per anonymousId and per client IP (a security finding: 2,000 streams for one
 * anonymousId all got 200). Over a cap: 429 in the rate-limit error shape before the stream opens; a closed
 * stream frees its slot. Tiny caps here: 2 per visitor, 4 per address (every test client is 127.0.0.1).
 */
import { randomUUID } from 'node:crypto';
import type http from 'node:http';

import { SERVICES } from '../../app/container';
import type { Services } from '../../app/services';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser } from '../support/users';
import {
  base,
  collect,
  distributedAgent,
  knowledgeBaseWithDocument,
  openStream,
  type PublishedAgent,
  startConversation,
  waitFor,
} from './public-support';

let p: TestPlatform;
let agent: PublishedAgent;
const open: { req: http.ClientRequest; res: http.IncomingMessage }[] = [];

beforeAll(async () => {
  p = await startTestPlatform({ PUBLIC_PRESENCE_STREAMS_PER_VISITOR: '2', PUBLIC_PRESENCE_STREAMS_PER_IP: '4' });
  const owner = await registerUser(p.http, { label: 'stream-caps' });
  agent = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner));
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  for (const s of open) s.req.destroy();
  await p?.close();
}, BOOT_TIMEOUT_MS);
afterEach(async () => {
  for (const s of open.splice(0)) s.req.destroy();
  await waitFor(async () => slots().holders === 0, 'every slot freed');
});

const slots = () => p.container.get<Services>(SERVICES).publicChat.presenceStreams;

async function stream(visitor: string, conversationId: string) {
  const s = await openStream(p, 'GET', `${base(agent.slug)}/conversations/${conversationId}/events?anonymousId=${visitor}`);
  if (s.res.statusCode === 200) {
    const text = collect(s.res);
    await waitFor(async () => text.text.includes(': connected'), 'the stream to open');
    open.push(s);
    return { status: 200, body: undefined, headers: s.res.headers, ...s };
  }
  let text = '';
  for await (const chunk of s.res) text += chunk as string;
  return { status: s.res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown>, headers: s.res.headers, ...s };
}

function expectCapped(r: { status: number; body: unknown; headers: http.IncomingHttpHeaders }, what: RegExp) {
  expect(r.status).toBe(429);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.body).toMatchObject({ error: 'rate limited', code: 'RATE_LIMITED', message: expect.stringMatching(what) });
  expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
}

it('refuses a third stream for one anonymousId with 429 before it opens; a closed stream frees its slot', async () => {
  const visitor = randomUUID();
  const conversationId = await startConversation(p, agent.slug, visitor);
  expect((await stream(visitor, conversationId)).status).toBe(200);
  expect((await stream(visitor, conversationId)).status).toBe(200);
  expectCapped(await stream(visitor, conversationId), /presence streams \(at most 2 per visitor\)/);
  expectCapped(await stream(visitor, conversationId), /at most 2 per visitor/);
  // Another visitor on the same address still gets one.
  const other = randomUUID();
  expect((await stream(other, await startConversation(p, agent.slug, other))).status).toBe(200);

  open.shift()!.req.destroy();
  await waitFor(async () => slots().count(`visitor:${visitor}`) === 1, 'the closed stream to free its slot');
  expect((await stream(visitor, conversationId)).status).toBe(200);
  expectCapped(await stream(visitor, conversationId), /at most 2 per visitor/);
});

it('caps streams per client IP whatever the anonymousId', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 5; i++) {
    const visitor = randomUUID();
    const r = await stream(visitor, await startConversation(p, agent.slug, visitor));
    statuses.push(r.status);
    if (r.status === 429) expectCapped(r, /at most 4 per address/);
  }
  expect(statuses).toEqual([200, 200, 200, 200, 429]);
  open.pop()!.req.destroy();
  const visitor = randomUUID();
  const conversationId = await startConversation(p, agent.slug, visitor);
  await waitFor(async () => (await stream(visitor, conversationId)).status === 200, 'a slot for the address again');
});

it('frees the slot of a refused request (404: not the visitor’s conversation)', async () => {
  const visitor = randomUUID();
  for (let i = 0; i < 4; i++) expect((await stream(visitor, randomUUID())).status).toBe(404);
  expect(slots().count(`visitor:${visitor}`)).toBe(0);
  expect((await stream(visitor, await startConversation(p, agent.slug, visitor))).status).toBe(200);
});
