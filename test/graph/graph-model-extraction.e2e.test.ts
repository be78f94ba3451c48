/**
 * Model-backed graph extraction end to end: a platform on PGlite with GRAPH_EXTRACTION_MODEL naming an
 * OpenAI model served by a local fake of the OpenAI API. Documents are uploaded through the gateway and
 * ingested by the worker; the fake answers each chunk's structured-output request.
 */
import { FakeOpenAi, openAiErrorBody } from '../fakes/fake-openai';
import { createKb, upload, waitForDocument } from '../knowledge/knowledge-support';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const MODEL = 'openai/gpt-4o-mini';
const FREE_MODEL = 'openai/graph-free-test';
const PARAGRAPHS = [
  'Ada Lovelace worked with Charles Babbage on the Analytical Engine in London. She wrote the first published program.',
  'Charles Babbage designed the Analytical Engine, a general-purpose mechanical computer, and lectured in Turin about it.',
  'Lovelace corresponded with Babbage for years; her notes on the Analytical Engine were published in 1843 in London.',
];
const GOOD = {
  entities: [
    { name: 'Ada Lovelace', type: 'Person', aliases: ['Lovelace'], confidence: 0.95 },
    { name: 'Charles Babbage', type: 'person', aliases: ['Babbage'] },
    { name: 'Analytical Engine', type: 'product' },
  ],
  relationships: [
    {
      source: 'Lovelace',
      target: 'Charles Babbage',
      type: 'worked with',
      weight: 0.9,
      evidence: 'Ada Lovelace worked with Charles Babbage.',
    },
    { source: 'Charles Babbage', target: 'Analytical Engine', type: 'created' },
    { source: 'Ada Lovelace', target: 'Somebody Unnamed', type: 'knows' }, // an end the model did not list: dropped
  ],
};

/** A chat completion body as the API sends it, with the given assistant text. */
const completion = (content: string) => ({
  json: {
    id: 'chatcmpl-fake',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { prompt_tokens: 400, completion_tokens: 60, total_tokens: 460 },
  },
});

const fake = new FakeOpenAi();
let p: TestPlatform;
let owner: TestUser;

beforeAll(async () => {
  await fake.start();
  fake.reply = JSON.stringify(GOOD);
  p = await startTestPlatform({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MAX_RETRIES: '0',
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'none',
    GRAPH_EXTRACTION_MODEL: MODEL,
  });
  const gpt = (await p.store.repos.models.findById(MODEL))!;
  await p.store.repos.models.upsert([
    { ...gpt, id: FREE_MODEL, name: 'Free graph model', promptPricePerToken: 0, completionPricePerToken: 0, isFree: true },
  ]);
  owner = await registerUser(p.http, { label: 'graph-model-owner' });
}, 300_000);
afterAll(async () => {
  await p?.close();
  await fake.close();
});

/** A knowledge base chunking small, so one document has several chunks. */
async function ingest(settings: Record<string, unknown> = {}, paragraphs = PARAGRAPHS) {
  const kb = await createKb(p, owner.accessToken, {
    name: `KB ${Math.random()}`,
    settings: { chunking: { size: 150, overlap: 0 }, ...settings },
  });
  const r = await upload(p, `/api/knowledge/kb/${kb.id}/documents`, owner.accessToken, {
    name: 'engine.txt',
    bytes: Buffer.from(paragraphs.join('\n\n')),
    type: 'text/plain',
  });
  expect(r.status).toBe(201);
  const doc = await waitForDocument(p, owner.accessToken, kb.id, r.body.document.id, 120_000);
  return { kbId: kb.id, doc };
}

const chatRequests = () => fake.requests.filter((q) => q.path === '/v1/chat/completions');
const graphEvents = async () =>
  ((await p.http.get('/api/billing/wallet', { token: owner.accessToken })).body.events as any[]).filter((e) => e.kind === 'graph');

describe('model-backed graph extraction', () => {
  it('stores the model entities with chunk provenance and bills the token usage at the catalogue price', async () => {
    const before = chatRequests().length;
    const { kbId, doc } = await ingest();
    expect(doc).toMatchObject({ processingStatus: 'completed', graphStatus: 'completed' });
    const calls = chatRequests().slice(before);
    const chunks = calls.length;
    expect(chunks).toBeGreaterThanOrEqual(2);
    // structured output: the JSON schema goes as response_format, the chunk text in the user message
    expect(calls[0].json).toMatchObject({
      model: 'gpt-4o-mini',
      temperature: 0,
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'graph_extraction', schema: { required: ['entities', 'relationships'] } },
      },
    });
    expect(calls.map((c) => c.json.messages[1].content).join(' ')).toContain('Analytical Engine');

    const list = await p.http.get(`/api/knowledge/kb/${kbId}/graph/entities`, { token: owner.accessToken });
    expect(list.body.entities.map((e: any) => e.name).sort()).toEqual(['Ada Lovelace', 'Analytical Engine', 'Charles Babbage']);
    const ada = list.body.entities.find((e: any) => e.name === 'Ada Lovelace');
    // one mention per chunk the model named her in: provenance is chunk-level
    expect(ada).toMatchObject({ type: 'person', aliases: ['Lovelace'], documentIds: [doc.id], mentionCount: chunks, confidence: 0.95 });
    const detail = await p.http.get(`/api/knowledge/kb/${kbId}/graph/entities/${ada.id}`, { token: owner.accessToken });
    expect(detail.body.relationships).toContainEqual(
      expect.objectContaining({ type: 'worked_with', documentId: doc.id, chunkIndex: expect.any(Number), weight: 0.9 }),
    );
    expect(detail.body.relationships.map((r: any) => r.type)).not.toContain('knows');

    const [event] = (await graphEvents()).filter((e) => e.reference.documentId === doc.id);
    expect(event).toMatchObject({ model: MODEL, promptTokens: expect.any(Number), reference: { knowledgeBaseId: kbId } });
    expect(event.promptTokens).toBeGreaterThan(0);
    expect(event.completionTokens).toBeGreaterThan(0);
    const gpt = (await p.store.repos.models.findById(MODEL))!;
    const providerCost = event.promptTokens * gpt.promptPricePerToken + event.completionTokens * gpt.completionPricePerToken;
    expect(event.providerCostUsd).toBeCloseTo(providerCost, 6);
    expect(event.costUsd).toBeGreaterThan(event.providerCostUsd); // the margin
  });

  it('marks the document partial when one chunk answer does not match the schema', async () => {
    fake.replyOnce(completion(JSON.stringify({ entities: [{ name: 42, type: 'person' }], relationships: [] })));
    const { kbId, doc } = await ingest();
    expect(doc).toMatchObject({ processingStatus: 'completed', graphStatus: 'partial' });
    const list = await p.http.get(`/api/knowledge/kb/${kbId}/graph/entities`, { token: owner.accessToken });
    expect(list.body.total).toBe(3);
    // the calls were made, so they are billed, failed chunk included
    expect((await graphEvents()).some((e) => e.reference.documentId === doc.id && e.reference.failedChunks === 1)).toBe(true);
  });

  it('fails the graph (not the document) when the provider errors, and stores nothing', async () => {
    // one chunk, one call (retries off): the error answers it
    fake.replyOnce({ status: 500, json: openAiErrorBody('The server had an error', 'server_error') });
    const before = chatRequests().length;
    const { kbId, doc } = await ingest({}, [PARAGRAPHS[0]]);
    expect(chatRequests().length - before).toBe(1);
    expect(doc).toMatchObject({ processingStatus: 'completed', graphStatus: 'failed' });
    expect((await p.http.get(`/api/knowledge/kb/${kbId}/graph/entities`, { token: owner.accessToken })).body.total).toBe(0);
    expect((await graphEvents()).some((e) => e.reference.documentId === doc.id)).toBe(false);
  });

  it('records a 0-cost billing event for a free model named by the knowledge base', async () => {
    const before = chatRequests().length;
    const { doc } = await ingest({ graphExtractionModel: FREE_MODEL });
    expect(doc.graphStatus).toBe('completed');
    expect(chatRequests().slice(before)[0].json.model).toBe('graph-free-test');
    const [event] = (await graphEvents()).filter((e) => e.reference.documentId === doc.id);
    expect(event).toMatchObject({ model: FREE_MODEL, costUsd: 0, providerCostUsd: 0 });
    expect(event.promptTokens).toBeGreaterThan(0);
  });

  it('fails the graph before any call when the wallet is empty and the model is paid', async () => {
    const balance = (await p.http.get('/api/billing/wallet', { token: owner.accessToken })).body.wallet.balance as number;
    await p.store.repos.wallets.adjust(owner.orgId, -balance, new Date().toISOString());
    try {
      const before = chatRequests().length;
      const { doc } = await ingest({}, [PARAGRAPHS[0]]);
      expect(doc).toMatchObject({ processingStatus: 'completed', graphStatus: 'failed' });
      expect(chatRequests().length).toBe(before);
    } finally {
      await p.store.repos.wallets.adjust(owner.orgId, balance, new Date().toISOString());
    }
  });

  it('runs the offline extractor, with no model call and no billing, when the knowledge base says offline', async () => {
    const before = chatRequests().length;
    const { kbId, doc } = await ingest({ graphExtractionModel: 'offline' });
    expect(doc.graphStatus).toBe('completed');
    expect(chatRequests().length).toBe(before);
    expect((await graphEvents()).some((e) => e.reference.documentId === doc.id)).toBe(false);
    const people = await p.http.get(`/api/knowledge/kb/${kbId}/graph/entities?type=person`, { token: owner.accessToken });
    expect(people.body.entities.map((e: any) => e.name)).toEqual(expect.arrayContaining(['Ada Lovelace', 'Charles Babbage']));
  });
});
