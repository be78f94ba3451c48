import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { expectError } from './fixtures';

let p: TestPlatform;
let owner: TestUser;
// Starting a platform (PGlite in WASM, migrations, catalogue) takes long on a loaded machine.
beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'owner' });
}, 120_000);
afterAll(() => p?.close());

const as = () => ({ token: owner.accessToken });
const source = (n: number) => ({ url: `https://example.com/page-${n}`, sourceType: 'url' });

describe('POST /api/bots/setup', () => {
  it('creates a knowledge base and a draft agent linked to it', async () => {
    const r = await p.http.post(
      '/api/bots/setup',
      { name: 'Docs helper', description: 'Answers from our docs', sources: [source(1), source(2), source(3)] },
      as(),
    );
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      success: true,
      bot: { name: 'Docs helper', isDraft: true, status: 'draft' },
      knowledgeBase: { id: expect.any(String), name: 'Docs helper' },
    });
    expect(r.body.bot.knowledgeBaseIds).toEqual([r.body.knowledgeBase.id]);
    const got = await p.http.get(`/api/bots/${r.body.bot.id}`, as());
    expect(got.body.knowledgeBases.map((kb: any) => kb.id)).toEqual([r.body.knowledgeBase.id]);
  });

  it('refuses more than 3 sources with too_many_sources and creates nothing', async () => {
    const before = (await p.http.get('/api/bots', as())).body.pagination.total;
    const r = await p.http.post('/api/bots/setup', { name: 'Too much', sources: [source(1), source(2), source(3), source(4)] }, as());
    expectError(r, 400, 'too_many_sources');
    expectError(await p.http.post('/api/bots/setup', { name: 'Nothing', sources: [] }, as()), 400, 'Validation Error');
    expect((await p.http.get('/api/bots', as())).body.pagination.total).toBe(before);
  });
});

describe('publishing with a knowledge base built through the knowledge API', () => {
  it('goes live once an uploaded document is indexed', async () => {
    const kb = await p.http.post('/api/knowledge/kb', { name: 'Handbook' }, as());
    expect(kb.status).toBe(201);
    const kbId = kb.body.knowledgeBase.id;
    const bot = await p.http.post('/api/bots', { name: 'Handbook bot', knowledgeBaseIds: [kbId], isDraft: true }, as());
    const id = bot.body.bot.id;
    expectError(await p.http.post(`/api/bots/${id}/publish`, {}, as()), 400, 'Knowledge base not ready');

    const form = new FormData();
    form.append(
      'file',
      new Blob(['Our office opens at nine. Holidays follow the national calendar.'], { type: 'text/plain' }),
      'handbook.txt',
    );
    const upload = await fetch(`${p.gatewayUrl}/api/knowledge/kb/${kbId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.accessToken}` },
      body: form,
    });
    expect(upload.status).toBe(201);

    let status: any;
    // Ingestion runs on the in-process worker; wait for it (bounded), never assert on its speed.
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      status = (await p.http.get(`/api/bots/${id}/indexing-status`, as())).body;
      if (status.ready || status.failedDocuments) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toEqual({
      linkedKbCount: 1,
      totalDocuments: 1,
      indexedDocuments: 1,
      failedDocuments: 0,
      pendingDocuments: 0,
      ready: true,
    });
    const published = await p.http.post(`/api/bots/${id}/publish`, {}, as());
    expect(published.body).toMatchObject({ status: 'published', bot: { isDraft: false } });
  }, 90_000);
});
