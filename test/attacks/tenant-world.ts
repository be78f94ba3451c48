import { randomUUID } from 'node:crypto';

import { upload, waitForDocument } from '../knowledge/knowledge-support';
import { distributedAgent, startConversation, uploadAttachment } from '../public-chat/public-support';
import type { TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';

/**
 * Real resources of one organization ("A"), several of each kind, and callers from another organization
 * ("B") and from A itself with the weakest role. The BOLA generator fills every id parameter from here, keyed
 * by resource kind: an engineer adding an endpoint over a new resource adds its kind here (and one line in
 * bola-params.ts mapping the path parameter to it).
 */
export interface TenantWorld {
  a: { owner: TestUser; member: TestUser; viewer: TestUser; orgId: string };
  b: { owner: TestUser; admin: TestUser; member: TestUser; viewer: TestUser; orgId: string; apiKey: string };
  /** A's identifiers that are public by design (the distributed agent's id is in its public object). */
  publicIds: string[];
  /** Resource kind -> ids (or slugs, numbers) of A's resources. */
  ids: Record<string, string[]>;
  /** Anonymous visitor of A's public agent who owns the public conversations and attachments. */
  visitor: string;
}

async function ok<T = any>(what: string, r: Promise<{ status: number; body: any; text: string }>, status = [200, 201]): Promise<T> {
  const res = await r;
  if (!status.includes(res.status)) throw new Error(`${what} failed: ${res.status} ${res.text}`);
  return res.body as T;
}

export async function buildTenantWorld(p: TestPlatform): Promise<TenantWorld> {
  const http = p.http;
  const ownerA = await registerUser(http, { label: 'a-owner' });
  const memberA = await joinOrganization(http, ownerA, ownerA.orgId, await registerUser(http, { label: 'a-member' }), 'member');
  const viewerA = await joinOrganization(http, ownerA, ownerA.orgId, await registerUser(http, { label: 'a-viewer' }), 'viewer');
  const ownerB = await registerUser(http, { label: 'b-owner' });
  const memberB = await joinOrganization(http, ownerB, ownerB.orgId, await registerUser(http, { label: 'b-member' }), 'member');
  const viewerB = await joinOrganization(http, ownerB, ownerB.orgId, await registerUser(http, { label: 'b-viewer' }), 'viewer');
  const adminB = await joinOrganization(http, ownerB, ownerB.orgId, await registerUser(http, { label: 'b-admin' }), 'admin');
  const token = { token: ownerA.accessToken };

  const ids: Record<string, string[]> = {
    organization: [ownerA.orgId],
    user: [ownerA.id, memberA.id, viewerA.id],
    agent: [],
    agentSlug: [],
    knowledgeBase: [],
    document: [],
    source: [],
    conversation: [],
    publicConversation: [],
    attachment: [],
    promptVersion: [],
    apiKey: [],
    invitation: [],
    message: [],
    group: [],
    job: [],
    contact: [],
    channel: [],
    graphEntity: [],
  };

  for (let i = 0; i < 2; i++) {
    const kb = await ok('create KB', http.post('/api/knowledge/kb', { name: `A secret KB ${i}` }, token));
    ids.knowledgeBase!.push(kb.knowledgeBase.id);
    const up = await upload(p, `/api/knowledge/kb/${kb.knowledgeBase.id}/documents`, ownerA.accessToken, {
      name: `a-doc-${i}.txt`,
      type: 'text/plain',
      // Named people and places, so the graph step extracts entities of A's own.
      bytes: Buffer.from(
        `Organization A private handbook number ${i}. Refunds take fourteen days. Ada Lovelace worked with Charles Babbage in London.`,
      ),
    });
    if (up.status !== 201) throw new Error(`upload failed: ${up.status} ${up.text}`);
    await waitForDocument(p, ownerA.accessToken, kb.knowledgeBase.id, up.body.document.id);
    ids.document!.push(up.body.document.id);
    ids.job!.push(up.body.jobId);
    // Written through the repository: adding a source over HTTP fetches its URL, and tests reach no internet.
    const now = new Date().toISOString();
    const sourceId = randomUUID();
    await p.store.repos.sources.create({
      id: sourceId,
      organizationId: ownerA.orgId,
      knowledgeBaseId: kb.knowledgeBase.id,
      url: `https://a-${i}.example.com/`,
      sourceType: 'url',
      options: {},
      syncEnabled: false,
      syncFrequencyMinutes: 60,
      lastSyncedAt: null,
      nextSyncAt: null,
      lastSyncError: null,
      syncHealth: 'pending',
      createdBy: ownerA.id,
      createdAt: now,
      updatedAt: now,
    });
    ids.source!.push(sourceId);
  }
  const kbId = ids.knowledgeBase![0]!;
  const published = await distributedAgent(p, ownerA, kbId, { fileUploadsEnabled: true });
  ids.agent!.push(published.id);
  ids.agentSlug!.push(published.slug);
  const draft = await ok('create agent', http.post('/api/bots', { name: 'A draft', knowledgeBaseIds: [kbId], isDraft: true }, token));
  ids.agent!.push(draft.bot.id);

  for (const agentId of ids.agent!) {
    const c = await ok('conversation', http.post(`/api/bots/${agentId}/conversations`, { variables: { plan: 'gold' } }, token));
    ids.conversation!.push(c.data.conversationId);
    const v = await ok('prompt version', http.post(`/api/bots/${agentId}/prompt-config-versions`, { sections: [] }, token));
    ids.promptVersion!.push(v.version.id);
  }
  const said = await ok(
    'chat',
    http.post(`/api/bots/${published.id}/chat`, { message: 'How long do refunds take?', conversationId: ids.conversation![0] }, token),
  );
  ids.message!.push(said.messageId);
  const visitor = randomUUID();
  ids.publicConversation!.push(await startConversation(p, published.slug, visitor));
  const att = await uploadAttachment(p, published.slug, visitor, { name: 'a.txt', type: 'text/plain', bytes: Buffer.from('visitor note') });
  if (att.status !== 200) throw new Error(`attachment failed: ${att.status} ${att.text}`);
  ids.attachment!.push(att.body.attachment.id);

  const key = await ok('api key', http.post('/api/api-keys', { name: 'A key', scopes: ['agents:write', 'contacts:read'] }, token));
  ids.apiKey!.push(key.apiKey.id);
  const inv = await ok(
    'invite',
    http.post(`/api/organizations/${ownerA.orgId}/invitations`, { email: 'a-invitee@example.com', role: 'member' }, token),
  );
  ids.invitation!.push(inv.invitation.id);
  const group = await ok('group', http.post(`/api/organizations/${ownerA.orgId}/groups`, { name: 'A insiders' }, token));
  ids.group!.push(group.group.id);
  const joined = await http.request('PUT', `/api/organizations/${ownerA.orgId}/groups/${group.group.id}/members/${memberA.id}`, token);
  if (joined.status !== 204) throw new Error(`group member failed: ${joined.status} ${joined.text}`);

  // The visitor's first message makes a contact of A (identity resolution on the public lane).
  await ok(
    'visitor message',
    http.post(`/api/public/agents/${published.slug}/chat`, {
      message: 'Hello, I am Grace Hopper',
      conversationId: ids.publicConversation![0],
      anonymousId: visitor,
    }),
  );
  const contacts = await ok<{ contacts: { id: string }[] }>('contacts', http.get('/api/contacts', token));
  ids.contact!.push(...contacts.contacts.map((c) => c.id));
  const channel = await ok('channel', http.post(`/api/bots/${published.id}/channels`, { type: 'web', label: 'A site' }, token));
  ids.channel!.push(channel.channel.id);
  const entities = await ok<{ entities: { id: string }[] }>('graph entities', http.get(`/api/knowledge/kb/${kbId}/graph/entities`, token));
  ids.graphEntity!.push(...entities.entities.map((e) => e.id));

  const bKey = await ok(
    'B api key',
    http.post('/api/api-keys', { name: 'B key', scopes: ['agents:write', 'contacts:read'] }, { token: ownerB.accessToken }),
  );
  return {
    a: { owner: ownerA, member: memberA, viewer: viewerA, orgId: ownerA.orgId },
    b: { owner: ownerB, admin: adminB, member: memberB, viewer: viewerB, orgId: ownerB.orgId, apiKey: bKey.key },
    publicIds: [published.id],
    ids,
    visitor,
  };
}
