/**
 * Contacts end to end through the gateway (spec 2.10, 3.5, 4.11): visitors of the public lane become contacts
 * (identity `web` = anonymousId) on their first message, the offline extractor records what they say with
 * history, duplicates are refused, operators list/search/filter, read, set status, delete, and export CSV with
 * a JWT or a `contacts:read` API key. Another organization's contacts answer 404.
 */
import { randomUUID } from 'node:crypto';

import { base, distributedAgent, knowledgeBaseWithDocument, startConversation } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let owner: TestUser;
let other: TestUser;
let agent: { id: string; slug: string };

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'contacts-owner' });
  other = await registerUser(p.http, { label: 'contacts-other' });
  agent = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner));
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

async function visitorSays(anonymousId: string, ...messages: string[]): Promise<string> {
  const conversationId = await startConversation(p, agent.slug, anonymousId);
  for (const message of messages) {
    const r = await p.http.post(`${base(agent.slug)}/chat`, { message, conversationId, anonymousId });
    expect(r.status).toBe(200);
  }
  return conversationId;
}

const list = (query = '', user = owner) => p.http.get(`/api/contacts${query}`, { token: user.accessToken });

describe('contacts from the public lane', () => {
  let adaId: string;

  it('creates a contact on the first message, extracts fields with history, and moves new to engaged on the reply', async () => {
    const anon = randomUUID();
    const conversationId = await visitorSays(anon, 'Hello, my name is Ada Lovelace', 'Write to ADA@Example.com or +44 20 7946 0958');
    const r = await list('?search=lovelace');
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
    const item = r.body.contacts[0];
    expect(item).toMatchObject({
      displayName: 'Ada Lovelace',
      primaryEmail: 'ada@example.com',
      primaryPhone: '+442079460958',
      status: 'engaged',
      channels: ['web'],
      conversationCount: 1,
      agentCount: 1,
    });
    adaId = item.id;
    const detail = await p.http.get(`/api/contacts/${adaId}`, { token: owner.accessToken });
    expect(detail.status).toBe(200);
    expect(detail.body.contact).toMatchObject({ id: adaId, sourceChannel: 'web', displayNameSource: 'extraction', status: 'engaged' });
    expect(detail.body.contact).not.toHaveProperty('channels');
    expect(detail.body.identities).toEqual([{ channel: 'web', identifier: anon.toLowerCase(), verified: false }]);
    const keys = detail.body.fieldHistory.map((h: { field_key: string }) => h.field_key);
    expect(keys.slice(-1)).toEqual(['name']); // oldest last: newest first
    expect(keys).toEqual(expect.arrayContaining(['email', 'phone', 'name']));
    expect(detail.body.fieldHistory[0]).toMatchObject({ source: 'extraction', source_ref: null, rejected_reason: null });

    const convs = await p.http.get(`/api/contacts/${adaId}/conversations`, { token: owner.accessToken });
    expect(convs.body.conversations).toEqual([
      expect.objectContaining({ id: conversationId, bot_id: agent.id, platform: 'web', bot_name: expect.any(String) }),
    ]);
  });

  it('refuses an email that belongs to another contact, recording the rejection without merging', async () => {
    const anon = randomUUID();
    await visitorSays(anon, 'I think my address is ada@example.com');
    const r = await list('?search=' + encodeURIComponent(anon.slice(0, 8)));
    expect(r.body.total).toBe(0); // the anonymousId is an identity, not a searchable field
    const all = await list('?limit=50');
    const newcomer = all.body.contacts.find((c: { id: string; primaryEmail: string | null }) => c.id !== adaId);
    expect(newcomer.primaryEmail).toBeNull();
    const detail = await p.http.get(`/api/contacts/${newcomer.id}`, { token: owner.accessToken });
    expect(detail.body.fieldHistory).toEqual([
      expect.objectContaining({ field_key: 'email', value: 'ada@example.com', rejected_reason: 'rejected_duplicate_identity' }),
    ]);
  });

  it('filters by channel, botId and status, pages with a total that ignores paging, caps limit at 50', async () => {
    expect((await list('?channel=web')).body.total).toBe(2);
    expect((await list('?channel=email')).body.total).toBe(0);
    expect((await list(`?botId=${agent.id}`)).body.total).toBe(2);
    expect((await list(`?botId=${randomUUID()}`)).body.total).toBe(0);
    expect((await list('?status=engaged')).body.total).toBe(2);
    const paged = await list('?limit=1&offset=1');
    expect(paged.body).toMatchObject({ total: 2, contacts: [expect.any(Object)] });
    expect((await list('?limit=500')).status).toBe(200);
    expect((await list('?status=lost')).status).toBe(400);
  });

  it('sets any status with an operator history row; 400 for missing or invalid; 404 for another organization', async () => {
    const set = (status: unknown, user = owner) => p.http.patch(`/api/contacts/${adaId}/status`, { status }, { token: user.accessToken });
    const r = await set('closed');
    expect(r.status).toBe(200);
    expect(r.body.contact).toMatchObject({ id: adaId, status: 'closed' });
    expect((await set('new')).body.contact.status).toBe('new');
    const history = (await p.http.get(`/api/contacts/${adaId}`, { token: owner.accessToken })).body.fieldHistory;
    expect(history[0]).toMatchObject({ field_key: 'status', value: 'new', previous_value: 'closed', source: 'operator' });
    expect((await set('bogus')).status).toBe(400);
    expect((await p.http.patch(`/api/contacts/${adaId}/status`, {}, { token: owner.accessToken })).status).toBe(400);
    expect((await set('closed', other)).status).toBe(404);
    expect((await p.http.get(`/api/contacts/${adaId}`, { token: other.accessToken })).status).toBe(404);
    expect((await p.http.get(`/api/contacts/${adaId}/conversations`, { token: other.accessToken })).status).toBe(404);
    expect((await list('', other)).body.total).toBe(0);
  });

  it('exports CSV with a JWT and with a contacts:read key (403 insufficient_scope without the scope)', async () => {
    await p.store.repos.contacts.update(owner.orgId, adaId, { attributes: { company: '=HYPERLINK("x")', tier: 'gold, "vip"' } });
    const r = await p.http.get('/api/contacts/export', { token: owner.accessToken });
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(r.headers.get('content-disposition')).toBe('attachment; filename=contacts.csv');
    expect(r.headers.get('transfer-encoding')).toBe('chunked');
    // fetch's text() drops a byte-order mark: read the bytes.
    const bytes = Buffer.from(
      await (
        await fetch(`${p.gatewayUrl}/api/contacts/export`, { headers: { authorization: `Bearer ${owner.accessToken}` } })
      ).arrayBuffer(),
    );
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const lines = r.text.split('\r\n');
    expect(lines[0]).toBe(
      'id,organizationId,displayName,displayNameSource,primaryPhone,primaryEmail,sourceChannel,status,firstSeenAt,lastSeenAt,organizationName,conversationCount,agentCount,channels,identities,company,tier',
    );
    expect(lines.filter(Boolean)).toHaveLength(3);
    const ada = lines.find((l) => l.startsWith(adaId))!;
    expect(ada).toContain(`,"'=HYPERLINK(""x"")"`); // formula neutralised, then RFC 4180 quoted
    expect(ada).toContain('"gold, ""vip"""');
    expect(ada).toContain(',+442079460958,'.replace('+', "'+"));

    const key = async (scopes: string[]) =>
      (await p.http.post('/api/api-keys', { name: `k-${scopes.join()}`, scopes }, { token: owner.accessToken })).body.key as string;
    const withScope = await p.http.get('/v1/contacts/export?status=new', { token: await key(['contacts:read']) });
    expect(withScope.status).toBe(200);
    expect(withScope.text.split('\r\n').filter(Boolean)).toHaveLength(2);
    const without = await p.http.get('/v1/contacts/export', { token: await key(['agents:write']) });
    expect(without.status).toBe(403);
    expect(without.body.error).toBe('insufficient_scope');
    // organizationId is ignored for a non-administrator: the caller's own organization is exported.
    const foreign = await p.http.get(`/api/contacts/export?organizationId=${owner.orgId}`, { token: other.accessToken });
    expect(foreign.text.split('\r\n').filter(Boolean)).toHaveLength(1);
  });

  it('deletes a contact (conversations stay); another organization gets 404', async () => {
    expect((await p.http.delete(`/api/contacts/${adaId}`, { token: other.accessToken })).status).toBe(404);
    expect((await p.http.delete(`/api/contacts/${adaId}`, { token: owner.accessToken })).status).toBe(204);
    expect((await p.http.get(`/api/contacts/${adaId}`, { token: owner.accessToken })).status).toBe(404);
  });
});
