/**
 * Model-backed analysis of a channel (issue 13): with PROVISIONING_ANALYSIS_MODEL naming an OpenAI model
 * served by a local fake of the OpenAI API, the published agent is described by the model's structured
 * reply and the call is billed; a malformed reply falls back to the offline analysis with a warning, and the
 * build still ends ready. A build naming its own `model`: validated against the catalogue (unknown or not
 * served: 400 Validation Error), used for the analysis and the agent; a free model's call records a 0-cost event.
 */
import { cookingChannel } from '../../plugins/sources/youtube/test-fixtures/channel';
import { FakeOpenAi, openAiErrorBody } from '../fakes/fake-openai';
import { fromUrl, type ProvisioningWorld, settled, startProvisioningWorld } from './provisioning-support';

const MODEL = 'openai/gpt-4o-mini';
const MODEL_ANALYSIS = {
  name: 'Chef Helper',
  description: 'Weeknight cooking answers from Fixture Chef Kitchen.',
  systemPrompt: 'You help home cooks using only the Fixture Chef Kitchen videos.',
  starterQuestions: ['How do I sear a steak?', 'What can I cook in 20 minutes?', 'How do I keep pasta from sticking?'],
};

const fake = new FakeOpenAi();
let w: ProvisioningWorld;
const chef = cookingChannel('modelchef', 6, 'UCmodelchef0000000000000');
const broken = cookingChannel('brokenchef', 6, 'UCbrokenchef000000000000');
const outage = cookingChannel('outagechef', 6, 'UCoutagechef000000000000');
const picky = cookingChannel('pickychef', 6, 'UCpickychef0000000000000');
const thrifty = cookingChannel('thriftychef', 6, 'UCthriftychef00000000000');
/** A free chat model added to the catalogue (prices 0), served by the OpenAI connection like any `openai/` id. */
const FREE_MODEL = 'openai/gpt-oss-20b';

beforeAll(async () => {
  await fake.start();
  w = await startProvisioningWorld([chef, broken, outage, picky, thrifty], {
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MAX_RETRIES: '0',
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'none',
    PROVISIONING_ANALYSIS_MODEL: MODEL,
    OUTBOUND_ALLOW: new URL(fake.baseURL).host,
  });
}, 300_000);
afterAll(async () => {
  await w?.close();
  await fake.close();
});

const analysisCalls = () =>
  fake.requests.filter((q) => q.path === '/v1/chat/completions' && q.json?.response_format?.json_schema?.name === 'agent_analysis');

const billedAnalyses = async () =>
  ((await w.p.http.get('/api/billing/wallet', { token: w.owner.accessToken })).body.events as any[]).filter(
    (e) => e.kind === 'provisioning',
  );

describe('model-backed channel analysis', () => {
  it('publishes the agent the model described, from bounded channel content, and bills the call', async () => {
    fake.reply = JSON.stringify(MODEL_ANALYSIS);
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@modelchef' });
    expect(r.status).toBe(202);
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(done.starterQuestions).toEqual(MODEL_ANALYSIS.starterQuestions);
    expect(done.warning ?? '').not.toContain('described offline');

    const agent = await w.p.http.get(`/api/public/agents/${done.agentSlug}`);
    expect(agent.status).toBe(200);
    expect(agent.body).toMatchObject({ name: MODEL_ANALYSIS.name, description: MODEL_ANALYSIS.description });

    const calls = analysisCalls();
    expect(calls).toHaveLength(1);
    expect(calls[0].json.model).toBe('gpt-4o-mini');
    const prompt = (calls[0].json.messages as { content: string }[]).map((m) => m.content).join('\n');
    expect(prompt).toContain(chef.videos[0].title);
    expect(prompt.length).toBeLessThan(10_000);

    const events = await billedAnalyses();
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ model: MODEL });
    expect(events[0].promptTokens).toBeGreaterThan(0);
    expect(events[0].costUsd).toBeGreaterThan(0);
  });

  it('falls back to the offline analysis with a warning when the reply is malformed; the build is still ready', async () => {
    fake.reply = '{"name": "Half an answer", "starterQuestions": ["only one"]}';
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@brokenchef' });
    expect(r.status).toBe(202);
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(done.warning).toContain('The agent was described offline because the model reply was not a valid analysis');
    expect(done.starterQuestions).not.toContain('only one');
    expect(done.starterQuestions.length).toBeGreaterThanOrEqual(2);

    const agent = await w.p.http.get(`/api/public/agents/${done.agentSlug}`);
    expect(agent.body.name).toBe(`${done.channelTitle} Assistant`);
    expect(agent.body.name).not.toBe('Half an answer');
    // the failed call was still billed
    expect(await billedAnalyses()).toHaveLength(2);
  });

  it('falls back to the offline analysis with a warning when the provider fails; the build is still ready', async () => {
    fake.reply = JSON.stringify(MODEL_ANALYSIS);
    fake.replyOnce({ status: 500, json: openAiErrorBody('The server had an error', 'server_error') });
    const before = analysisCalls().length;
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@outagechef' });
    expect(r.status).toBe(202);
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(analysisCalls()).toHaveLength(before + 1);
    expect(done.warning).toContain('The agent was described offline because the model call failed');
    expect(done.starterQuestions).not.toEqual(MODEL_ANALYSIS.starterQuestions);
    const agent = await w.p.http.get(`/api/public/agents/${done.agentSlug}`);
    expect(agent.body.name).toBe(`${done.channelTitle} Assistant`);
  });
});

describe('a build that names its model', () => {
  it('refuses a model the catalogue does not list, or that no configured provider serves, with 400 Validation Error', async () => {
    const unknown = await fromUrl(w, { url: 'https://www.youtube.com/@pickychef', model: 'openai/not-a-model' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: 'Validation Error', details: { field: 'model', model: 'openai/not-a-model' } });
    expect(unknown.body.message).toContain('not in the catalogue');
    const unserved = await fromUrl(w, { url: 'https://www.youtube.com/@pickychef', model: 'cohere/command-r' });
    expect(unserved.status).toBe(400);
    expect(unserved.body.error).toBe('Validation Error');
    expect(unserved.body.message).toContain('No configured provider serves this model');
    // nothing was built
    expect(
      await w.p.store.repos.provisioningBuilds.latestReady(
        w.owner.orgId,
        'youtube:https://www.youtube.com/@pickychef',
        '1970-01-01T00:00:00Z',
      ),
    ).toBeNull();
  });

  it('analyses with the named model instead of PROVISIONING_ANALYSIS_MODEL, gives it to the agent and bills it', async () => {
    fake.reply = JSON.stringify(MODEL_ANALYSIS);
    const before = analysisCalls().length;
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@pickychef', model: 'openai/gpt-4o' });
    expect(r.status).toBe(202);
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(analysisCalls()).toHaveLength(before + 1);
    expect(analysisCalls()[before].json.model).toBe('gpt-4o');
    const build = (await w.p.store.repos.provisioningBuilds.find(r.body.buildId))!;
    const agent = await w.p.http.get(`/api/bots/${build.agentId}`, { token: w.owner.accessToken });
    expect(agent.body).toMatchObject({ name: MODEL_ANALYSIS.name, model: 'openai/gpt-4o' });
    const billed = (await billedAnalyses()).filter((e) => e.reference?.buildId === r.body.buildId);
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({ model: 'openai/gpt-4o' });
    expect(billed[0].costUsd).toBeGreaterThan(0);
  });

  it('records a 0-cost billing event for a free model', async () => {
    const base = (await w.p.store.repos.models.findById('openai/gpt-4o-mini'))!;
    await w.p.store.repos.models.upsert([
      { ...base, id: FREE_MODEL, name: 'gpt-oss-20b', promptPricePerToken: 0, completionPricePerToken: 0, isFree: true },
    ]);
    fake.reply = JSON.stringify(MODEL_ANALYSIS);
    const r = await fromUrl(w, { url: 'https://www.youtube.com/@thriftychef', model: FREE_MODEL });
    expect(r.status).toBe(202);
    const done = await settled(w, r.body.buildId);
    expect(done.status).toBe('ready');
    expect(done.starterQuestions).toEqual(MODEL_ANALYSIS.starterQuestions);
    const billed = (await billedAnalyses()).filter((e) => e.reference?.buildId === r.body.buildId);
    expect(billed).toHaveLength(1);
    expect(billed[0]).toMatchObject({ model: FREE_MODEL, costUsd: 0, providerCostUsd: 0 });
    expect(billed[0].promptTokens).toBeGreaterThan(0);
  });
});
