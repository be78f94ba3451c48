/**
 * The SDK (sdk/: openapi-fetch typed by the generated sdk/schema.d.ts, and the console's PlatformClient over it)
 * against a real platform through the gateway: sessions and their refresh, the platform's error body surfaced
 * as PlatformError, a document's ingestion followed to completion on the job stream, duplicate uploads.
 */
import { randomUUID } from 'node:crypto';

import { memorySessionStore, PlatformClient, PlatformError, unwrap } from '../../sdk';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const client = () => new PlatformClient({ baseUrl: p.gatewayUrl, sessions: memorySessionStore() });
const account = () => ({
  email: `sdk-${randomUUID().slice(0, 8)}@example.com`,
  password: `pw-${randomUUID()}`,
  displayName: 'Sam SDK',
  organizationName: 'SDK Org',
});

describe('console SDK', () => {
  it('registers, signs in and refreshes an expired access token once, transparently', async () => {
    const a = client();
    const input = account();
    const registered = await a.register(input);
    expect(a.organizationId).toBe(registered.user.organizations[0]!.id);

    const b = client();
    const session = await b.login(input.email, input.password);
    expect((await b.me()).user.email).toBe(input.email);

    // An access token the gateway refuses (as after expiry): the SDK refreshes and replays the request.
    b.http.sessions.save({ ...session, accessToken: 'not-a-valid-token' });
    const { knowledgeBase } = await b.createKnowledgeBase({ name: 'After refresh' });
    expect(knowledgeBase.name).toBe('After refresh');
    expect(b.session!.accessToken).not.toBe('not-a-valid-token');
    expect(b.session!.refreshToken).not.toBe(session.refreshToken);
  });

  it('ends the session when the refresh token is refused, and surfaces the 401 as a PlatformError', async () => {
    const c = client();
    const session = await c.register(account());
    let signedOut = 0;
    c.http.onSignedOut = () => signedOut++;
    c.http.sessions.save({ ...session, accessToken: 'expired', refreshToken: 'revoked' });
    const failure = await c.listKnowledgeBases().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PlatformError);
    expect((failure as PlatformError).status).toBe(401);
    expect(signedOut).toBe(1);
    expect(c.session).toBeNull();
  });

  it("carries the platform's error and code (Knowledge base not ready, Validation Error, 404 of another org)", async () => {
    const c = client();
    await c.register(account());
    const { knowledgeBase } = await c.createKnowledgeBase({ name: 'Empty' });
    const notReady = await c.createAgent({ name: 'Too early', knowledgeBaseIds: [knowledgeBase.id], isDraft: false }).catch((e) => e);
    expect(notReady).toMatchObject({ status: 400, error: 'Knowledge base not ready' });
    const invalid = await c.createKnowledgeBase({ name: '' }).catch((e) => e);
    expect(invalid).toMatchObject({ status: 400, error: 'Validation Error' });

    const stranger = client();
    await stranger.register(account());
    await expect(stranger.getKnowledgeBase(knowledgeBase.id)).rejects.toMatchObject({ status: 404 });
  });

  it("follows an uploaded document's ingestion job to completion, progress never going back", async () => {
    const c = client();
    await c.register(account());
    const { knowledgeBase } = await c.createKnowledgeBase({ name: 'Docs' });
    const text = 'Opening hours. The shop opens at nine and closes at six, Monday to Saturday.';
    const { jobId, document } = await c.uploadDocument(knowledgeBase.id, new Blob([text], { type: 'text/plain' }), 'hours.txt');
    const seen: number[] = [];
    const last = await c.watchJob(jobId!, (e) => seen.push(e.progress));
    expect(last).toMatchObject({ jobId, status: 'completed', progress: 100 });
    expect(seen.length).toBeGreaterThan(0);
    expect([...seen].sort((x, y) => x - y)).toEqual(seen);
    const { documents } = await c.listDocuments(knowledgeBase.id);
    expect(documents.find((d) => d.id === document.id)?.processingStatus).toBe('completed');

    const results = await c.search({ knowledgeBaseIds: [knowledgeBase.id], query: 'when does the shop open' });
    expect(results.results[0]).toMatchObject({ metadata: { documentTitle: 'hours.txt' } });
    expect(results.results[0]!.discoveryMethods).toContain('semantic');
  });

  it("takes a member's agent through review: publishing submits it, an owner approves, then publishes", async () => {
    const owner = client();
    const { user } = await owner.register(account());
    const orgId = user.organizations[0]!.id;
    const { knowledgeBase } = await owner.createKnowledgeBase({ name: 'Reviewed' });
    const { jobId } = await owner.uploadDocument(knowledgeBase.id, new Blob(['Returns are accepted for thirty days.']), 'returns.txt');
    await owner.watchJob(jobId!, () => undefined);

    const member = client();
    const memberAccount = account();
    await member.register(memberAccount);
    const { token } = await owner.createInvitation(orgId, { email: memberAccount.email, role: 'member' });
    await member.acceptInvitation(token);
    await member.switchOrganization(orgId);
    expect(member.organizationId).toBe(orgId);

    const draft = await member.createAgent({ name: 'Member agent', knowledgeBaseIds: [knowledgeBase.id], isDraft: true });
    expect((await member.updateAgent(draft.id, { isDraft: false })).status).toBe('pending_review');
    await expect(member.approveAgent(draft.id)).rejects.toMatchObject({ status: 403 });
    expect((await owner.approveAgent(draft.id)).status).toBe('approved');
    expect((await owner.publishAgent(draft.id)).status).toBe('published');
    const { slug } = await owner.publishDistribution(draft.id);
    expect((await owner.getAgent(draft.id)).slug).toBe(slug);
  });

  it('calls any operation through the generated client: typed data on success, the error body and status on failure', async () => {
    const c = client();
    await c.register(account());
    const { knowledgeBase } = await unwrap(c.api.POST('/api/knowledge/kb', { body: { name: 'Typed' } }));
    const listed = await c.api.GET('/api/knowledge/kb/{id}/documents', { params: { path: { id: knowledgeBase.id }, query: { limit: 5 } } });
    expect(listed.response.status).toBe(200);
    expect(listed.data).toMatchObject({ documents: [], total: 0, limit: 5 });

    const missing = await c.api.GET('/api/knowledge/kb/{id}', { params: { path: { id: randomUUID() } } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ error: expect.any(String), code: expect.any(String) });
    await expect(unwrap(c.api.GET('/api/knowledge/kb/{id}', { params: { path: { id: randomUUID() } } }))).rejects.toBeInstanceOf(
      PlatformError,
    );
  });

  it('answers a second upload of the same bytes with the existing document, unless allowDuplicate is set', async () => {
    const c = client();
    await c.register(account());
    const { knowledgeBase } = await c.createKnowledgeBase({ name: 'Dedup' });
    const bytes = () => new Blob(['Delivery takes two working days inside the city.'], { type: 'text/plain' });
    const first = await c.uploadDocument(knowledgeBase.id, bytes(), 'delivery.txt');
    expect(first.jobId).toEqual(expect.any(String));

    const again = await c.api.POST('/api/knowledge/kb/{id}/documents', {
      params: { path: { id: knowledgeBase.id } },
      body: formWith(bytes(), 'delivery-copy.txt') as never,
      bodySerializer: (b: unknown) => b as FormData,
    });
    expect(again.response.status).toBe(200);
    expect(again.data).toMatchObject({ duplicate: true, document: { id: first.document.id, title: 'delivery.txt' } });

    const forced = await c.uploadDocument(knowledgeBase.id, bytes(), 'delivery-copy.txt', { allowDuplicate: true });
    expect(forced.document.id).not.toBe(first.document.id);
    expect(forced.jobId).toEqual(expect.any(String));
    expect((await c.listDocuments(knowledgeBase.id)).total).toBe(2);
  });
});

function formWith(file: Blob, name: string): FormData {
  const form = new FormData();
  form.append('file', file, name);
  return form;
}
