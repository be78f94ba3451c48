/**
 * A widget channel's `config.allowedOrigins` is enforced on its agent's public lane (docs/contracts.md "Widget and hosted
 * chat"), through the gateway: an Origin not listed gets `403 origin_not_allowed` on the chat endpoints and no CORS
 * allow headers on a preflight; a listed one is answered with that origin; no Origin (server to server) passes;
 * an agent without a list is unaffected; a changed list applies at once. `config.theme` is served with the public
 * agent (the widget applies it: test/browser/widget.browser.test.ts).
 */
import { randomUUID } from 'node:crypto';

import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { distributedAgent, knowledgeBaseWithDocument, type PublishedAgent } from './public-support';

const SHOP = 'https://shop.example';
const EVIL = 'https://evil.example';
const THEME = { primaryColor: '#b91c1c', textColor: '#ffffff', position: 'left' };

let p: TestPlatform;
let owner: TestUser;
let locked: PublishedAgent;
let open: PublishedAgent;
let widgetId: string;

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'origins-owner' });
  const kbId = await knowledgeBaseWithDocument(p, owner);
  locked = await distributedAgent(p, owner, kbId);
  open = await distributedAgent(p, owner, kbId);
  const widget = await p.http.post(
    `/api/bots/${locked.id}/channels`,
    { type: 'widget', label: 'Shop widget', config: { allowedOrigins: [`${SHOP}/`], theme: THEME } },
    { token: owner.accessToken },
  );
  expect(widget.status).toBe(201);
  widgetId = widget.body.channel.id;
  // The other agent's widget lists no origin: any may call it.
  expect((await p.http.post(`/api/bots/${open.id}/channels`, { type: 'widget', config: {} }, { token: owner.accessToken })).status).toBe(
    201,
  );
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
}, BOOT_TIMEOUT_MS);

const base = (a: PublishedAgent) => `/api/public/agents/${a.slug}`;
const from = (origin: string): { headers: Record<string, string> } => ({ headers: { origin } });

describe("a widget channel's allowedOrigins", () => {
  it('refuses an unlisted Origin with 403 origin_not_allowed on every public chat endpoint of the agent', async () => {
    const visitor = randomUUID();
    const calls = [
      () => p.http.get(base(locked), from(EVIL)),
      () => p.http.post(`${base(locked)}/conversations`, { anonymousId: visitor }, from(EVIL)),
      () => p.http.get(`${base(locked)}/conversations?anonymousId=${visitor}`, from(EVIL)),
      () => p.http.post(`${base(locked)}/chat`, { anonymousId: visitor, conversationId: randomUUID(), message: 'hi' }, from(EVIL)),
    ];
    for (const call of calls) {
      const r = await call();
      expect(r.status).toBe(403);
      expect(r.body.error).toBe('origin_not_allowed');
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
    }
    // Nothing was created for the refused visitor.
    expect((await p.http.get(`${base(locked)}/conversations?anonymousId=${visitor}`)).body.data ?? []).toEqual([]);
  });

  it('answers a listed Origin with that origin, and a request without Origin as before', async () => {
    const visitor = randomUUID();
    const started = await p.http.post(`${base(locked)}/conversations`, { anonymousId: visitor }, from(SHOP));
    expect(started.status).toBe(200);
    expect(started.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(started.headers.get('vary')).toMatch(/origin/i);
    const got = await p.http.get(base(locked), from(SHOP));
    expect(got.status).toBe(200);
    expect(got.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect((await p.http.get(base(locked))).status).toBe(200);
  });

  it('answers a preflight from a listed origin with it, and one from an unlisted origin with no allow headers', async () => {
    const preflight = (origin: string) =>
      p.http.request('OPTIONS', `${base(locked)}/conversations`, {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
    const listed = await preflight(SHOP);
    expect(listed.status).toBe(204);
    expect(listed.headers.get('access-control-allow-origin')).toBe(SHOP);
    expect(listed.headers.get('access-control-allow-methods')).toContain('POST');
    const unlisted = await preflight(EVIL);
    expect(unlisted.headers.get('access-control-allow-origin')).toBeNull();
    expect(unlisted.headers.get('access-control-allow-methods')).toBeNull();
  });

  it('leaves an agent without a list open to any origin', async () => {
    const r = await p.http.post(`${base(open)}/conversations`, { anonymousId: randomUUID() }, from(EVIL));
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('applies a changed list at once', async () => {
    const patch = (allowedOrigins: string[]) =>
      p.http.patch(
        `/api/bots/${locked.id}/channels/${widgetId}`,
        { config: { allowedOrigins, theme: THEME } },
        { token: owner.accessToken },
      );
    expect((await p.http.get(base(locked), from(EVIL))).status).toBe(403);
    expect((await patch([SHOP, EVIL])).status).toBe(200);
    expect((await p.http.get(base(locked), from(EVIL))).status).toBe(200);
    expect((await patch([SHOP])).status).toBe(200);
    expect((await p.http.get(base(locked), from(EVIL))).status).toBe(403);
  });

  it("serves the widget channel's theme with the public agent", async () => {
    expect((await p.http.get(base(locked))).body.theme).toEqual(THEME);
    expect((await p.http.get(base(open))).body.theme).toEqual({});
  });
});
