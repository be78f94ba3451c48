/**
 * Client-defined tools on /v1/chat/completions (issue 14), with the official `openai` client against the
 * platform, whose agent's model is served by a local fake OpenAI-compatible provider that supports tools. The
 * client's tools reach the provider, the provider's tool calls come back to the client (finish_reason
 * `tool_calls`, plain and streamed), and the client's tool results go back to the provider on the next call.
 * A model the catalogue lists without tool support keeps the OpenAI-shaped refusal.
 */
import OpenAI from 'openai';

import { FakeOpenAi } from '../fakes/fake-openai';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { seedDocument } from './seed-knowledge';

const TOOLS_MODEL = 'openai/gpt-tools-test';
const PLAIN_MODEL = 'openai/gpt-plain-test';
const fake = new FakeOpenAi();
let p: TestPlatform;
let owner: TestUser;
let client: OpenAI;
let toolsAgent: string;
let plainAgent: string;

const weather: OpenAI.Chat.Completions.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Current weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};

beforeAll(async () => {
  await fake.start();
  p = await startTestPlatform({
    OPENAI_API_KEY: 'sk-test',
    OPENAI_BASE_URL: fake.baseURL,
    OPENAI_MAX_RETRIES: '0',
    EMBEDDINGS_PROVIDER: 'local',
    VISION_PROVIDER: 'none',
    TRANSCRIPTION_PROVIDER: 'none',
  });
  const template = (await p.store.repos.models.findById('openai/gpt-4o-mini'))!;
  const free = { ...template, isFree: true, promptPricePerToken: 0, completionPricePerToken: 0 };
  await p.store.repos.models.upsert([
    { ...free, id: TOOLS_MODEL, name: 'Tools test', capabilities: { ...template.capabilities, tools: true } },
    { ...free, id: PLAIN_MODEL, name: 'Plain test', capabilities: { ...template.capabilities, tools: false } },
  ]);
  owner = await registerUser(p.http, { label: 'compat-tools' });
  const kb = await p.http.post('/api/knowledge/kb', { name: 'Weather' }, { token: owner.accessToken });
  const knowledgeBaseIds = [kb.body.knowledgeBase.id];
  await seedDocument(p, owner.orgId, kb.body.knowledgeBase.id, 'climate.txt', ['Paris is mild in spring.']);
  const agent = async (model: string) => {
    const r = await p.http.post(
      '/api/bots',
      { name: `Tools ${model}`, model, knowledgeBaseIds, isDraft: false },
      { token: owner.accessToken },
    );
    if (r.status !== 201) throw new Error(`create agent failed: ${r.status} ${r.text}`);
    return r.body.bot.id as string;
  };
  toolsAgent = await agent(TOOLS_MODEL);
  plainAgent = await agent(PLAIN_MODEL);
  const key = await p.http.post('/api/api-keys', { name: 'tools', scopes: ['agents:write'] }, { token: owner.accessToken });
  expect(key.status).toBe(201);
  client = new OpenAI({ baseURL: `${p.gatewayUrl}/v1`, apiKey: key.body.key, maxRetries: 0 });
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await fake.close();
}, BOOT_TIMEOUT_MS);
beforeEach(() => fake.reset());

const lastChatRequest = () => fake.requests.filter((r) => r.path === '/v1/chat/completions').at(-1)!.json;

describe('/v1/chat/completions with client tools', () => {
  it('passes tools and tool_choice to the provider and returns its tool_calls unrun', async () => {
    fake.toolTurns.push([{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris' } }]);
    const r = await client.chat.completions.create({
      model: toolsAgent,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [weather],
      tool_choice: 'auto',
    });
    expect(r.choices[0].finish_reason).toBe('tool_calls');
    expect(r.choices[0].message.tool_calls).toEqual([
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(r.choices[0].message.content).toBeNull();
    const sent = lastChatRequest();
    expect(sent.tools).toEqual([weather]);
    expect(sent.tool_choice).toBe('auto');
  });

  it('sends the client tool results back to the provider and returns its final answer', async () => {
    const r = await client.chat.completions.create({
      model: toolsAgent,
      messages: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
        },
        { role: 'tool', tool_call_id: 'call_w1', content: '{"celsius":21}' },
      ],
      tools: [weather],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
    });
    expect(r.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: fake.reply } });
    const sent = lastChatRequest();
    expect(sent.tool_choice).toEqual({ type: 'function', function: { name: 'get_weather' } });
    expect(sent.messages.slice(-3)).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', content: '{"celsius":21}', tool_call_id: 'call_w1' },
    ]);
  });

  it('streams tool calls as OpenAI chunks the client accumulates', async () => {
    fake.toolTurns.push([
      { id: 'call_a', name: 'get_weather', arguments: { city: 'Oslo' } },
      { id: 'call_b', name: 'get_weather', arguments: { city: 'Rome' } },
    ]);
    const stream = client.chat.completions.stream({
      model: toolsAgent,
      messages: [{ role: 'user', content: 'Weather in Oslo and Rome?' }],
      tools: [weather],
    });
    const final = await stream.finalChatCompletion();
    expect(lastChatRequest().stream).toBe(true);
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(final.choices[0].message.tool_calls?.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments).city])).toEqual([
      ['call_a', 'get_weather', 'Oslo'],
      ['call_b', 'get_weather', 'Rome'],
    ]);
  });

  it('refuses tools in OpenAI error shape when the model does not support them, and malformed tools for one that does', async () => {
    const refused = await client.chat.completions
      .create({ model: plainAgent, messages: [{ role: 'user', content: 'hi' }], tools: [weather] })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused).toMatchObject({ param: 'tools', type: 'invalid_request_error' });
    expect((refused as Error).message).toMatch(/tools are not supported/);
    expect(fake.requests).toHaveLength(0);

    const malformed = await client.chat.completions
      .create({
        model: toolsAgent,
        messages: [{ role: 'user', content: 'hi' }],
        tools: [weather],
        tool_choice: { type: 'function', function: { name: 'not_listed' } },
      })
      .catch((e: unknown) => e);
    expect(malformed).toBeInstanceOf(OpenAI.BadRequestError);
    expect(malformed).toMatchObject({ param: 'tool_choice' });
  });
});
