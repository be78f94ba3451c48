import { errors, op } from '../operation';

const tags = ['openai-compatible'];

const message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool'] },
    content: {
      type: ['string', 'array', 'null'],
      items: { type: 'object', properties: { type: { type: 'string' }, text: { type: 'string' } } },
    },
  },
};

export const openAiCompatOperations = [
  op({
    operationId: 'openAiChatCompletions',
    method: 'post',
    path: '/v1/chat/completions',
    summary:
      "OpenAI-compatible chat completions (beyond the spec; API key with scope agents:write). model = id or slug of an agent of the key's organization; the last user message is the chat message, earlier user/assistant messages the history, system messages the per-message system prompt override. stream true: chat.completion.chunk SSE frames ending with data: [DONE] (an agent without streamingEnabled sends its answer as one chunk); else a chat.completion object with usage. Extra field: sources. Billing, credits and retrieval as in /api/bots/:id/chat. Errors use OpenAI's shape {error: {message, type, param, code}} so OpenAI's clients show them; tools and functions are refused (400, param tools).",
    tags,
    auth: 'apiKey',
    scope: 'agents:write',
    body: {
      type: 'object',
      required: ['model', 'messages'],
      properties: {
        model: { type: 'string', minLength: 1, maxLength: 200 },
        messages: { type: 'array', minItems: 1, maxItems: 500, items: message },
        stream: { type: 'boolean', default: false },
        stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
        max_tokens: { type: 'integer', minimum: 1 },
        max_completion_tokens: { type: 'integer', minimum: 1 },
        temperature: { type: 'number', minimum: 0, maximum: 2 },
        user: { type: 'string' },
        tools: {
          type: 'array',
          description: 'Not supported: agents call no client-defined tools (a non-empty list is refused in OpenAI error shape)',
        },
        tool_choice: { description: 'Only "none" is accepted' },
        functions: { type: 'array', description: 'Deprecated OpenAI field; not supported, as tools' },
        function_call: { description: 'Only "none" is accepted' },
      },
    },
    responses: {
      '200': { description: 'chat.completion, or an SSE stream of chat.completion.chunk', schema: { type: 'object' } },
      ...errors(400, 401, 402, 403, 404, 429, 502, 503),
    },
  }),
  op({
    operationId: 'openAiListModels',
    method: 'get',
    path: '/v1/models',
    summary: "The organization's agents as OpenAI model objects (id = agent id; slug when distributed); API key with scope agents:write",
    tags,
    auth: 'apiKey',
    scope: 'agents:write',
    responses: {
      '200': {
        description: 'Models',
        schema: {
          type: 'object',
          required: ['object', 'data'],
          properties: { object: { const: 'list' }, data: { type: 'array', items: { type: 'object' } } },
        },
      },
      ...errors(401, 403),
    },
  }),
];
