/**
 * The operator inbox (docs/contracts.md "Operator inbox"): an operator sees every conversation of an agent, whatever
 * its platform, and reads its messages, operator replies marked; other organizations get 404, viewers 403.
 */
import { randomUUID } from 'node:crypto';

import { base, distributedAgent, knowledgeBaseWithDocument, type PublishedAgent, startConversation } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let owner: TestUser;
let agent: PublishedAgent;

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'inbox-owner', displayName: 'Olivia Operator' });
  agent = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner));
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const inbox = (query = '', token = owner.accessToken, agentId = agent.id) =>
  p.http.get(`/api/bots/${agentId}/conversations${query}`, { token });

describe('operator inbox', () => {
  it("lists every visitor's conversation of the agent, newest activity first, with platform, title and message count", async () => {
    const first = await startConversation(p, agent.slug, randomUUID());
    const visitor = randomUUID();
    const second = await startConversation(p, agent.slug, visitor);
    const chat = await p.http.post(`${base(agent.slug)}/chat`, {
      message: 'How long do refunds take?',
      conversationId: second,
      anonymousId: visitor,
    });
    expect(chat.status).toBe(200);

    const r = await inbox();
    expect(r.status).toBe(200);
    expect(r.body.total).toBeGreaterThanOrEqual(2);
    const ids = r.body.conversations.map((c: any) => c.id);
    expect(ids.indexOf(second)).toBeLessThan(ids.indexOf(first));
    const item = r.body.conversations.find((c: any) => c.id === second);
    expect(item).toMatchObject({ platform: expect.any(String), title: 'How long do refunds take?', messageCount: 2 });
    expect(Object.keys(item)).toEqual(expect.arrayContaining(['contactId', 'createdAt', 'updatedAt']));

    const limited = await inbox('?limit=1');
    expect(limited.body.conversations).toHaveLength(1);
    expect(limited.body.total).toBe(r.body.total);
    expect((await inbox(`?platform=${item.platform}`)).body.conversations.map((c: any) => c.id)).toContain(second);
    expect((await inbox('?platform=whatsapp_business')).body.conversations).toEqual([]);
    // The visitor who wrote became a contact (docs/contracts.md "Contacts"): the inbox filters on it.
    expect(item.contactId).toEqual(expect.any(String));
    const ofContact = await inbox(`?contactId=${item.contactId}`);
    expect(ofContact.body).toMatchObject({ total: 1, conversations: [{ id: second }] });
    expect((await inbox(`?updatedSince=${new Date(Date.now() + 3_600_000).toISOString()}`)).body.conversations).toEqual([]);
    expect((await inbox('?updatedSince=yesterday')).status).toBe(400);
    expect((await inbox('?updatedSince=12345')).status).toBe(400);
    expect((await inbox('?limit=101')).status).toBe(400);
  });

  it("shows an operator's reply in the conversation's messages, marked with the operator's name", async () => {
    const visitor = randomUUID();
    const conversationId = await startConversation(p, agent.slug, visitor);
    await p.http.post(`${base(agent.slug)}/chat`, { message: 'Is shipping free?', conversationId, anonymousId: visitor });
    const sent = await p.http.post(
      `/api/bots/${agent.id}/conversations/${conversationId}/operator-events`,
      { type: 'operator.message', message: 'A human here: yes, above fifty euros.' },
      { token: owner.accessToken },
    );
    expect(sent.status).toBe(202);
    const r = await p.http.get(`/api/bots/${agent.id}/conversations/${conversationId}/messages`, { token: owner.accessToken });
    expect(r.status).toBe(200);
    const messages = r.body.messages;
    expect(messages[0]).toMatchObject({ role: 'user', content: 'Is shipping free?' });
    expect(messages[0].operator).toBeUndefined();
    expect(messages.at(-1)).toMatchObject({
      role: 'assistant',
      content: 'A human here: yes, above fifty euros.',
      operator: { displayName: 'Olivia Operator' },
    });
  });

  it('answers 404 to another organization and 403 to a viewer of this one', async () => {
    const conversationId = await startConversation(p, agent.slug, randomUUID());
    const stranger = await registerUser(p.http, { label: 'inbox-stranger' });
    expect((await inbox('', stranger.accessToken)).status).toBe(404);
    const strangerMessages = await p.http.get(`/api/bots/${agent.id}/conversations/${conversationId}/messages`, {
      token: stranger.accessToken,
    });
    expect(strangerMessages.status).toBe(404);

    const viewer = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: 'inbox-viewer' }), 'viewer');
    expect((await inbox('', viewer.accessToken)).status).toBe(403);

    // A conversation id of another agent of the same organization is not this agent's.
    const other = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner));
    const foreign = await p.http.get(`/api/bots/${other.id}/conversations/${conversationId}/messages`, { token: owner.accessToken });
    expect(foreign.status).toBe(404);
    expect((await inbox('', owner.accessToken, other.id)).body.conversations.map((c: any) => c.id)).not.toContain(conversationId);
  });
});
