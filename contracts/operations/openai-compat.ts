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
    tool_calls: {
      type: 'array',
      description: "An assistant message's tool calls (OpenAI shape), sent back with their results",
      items: { type: 'object' },
    },
    tool_call_id: { type: 'string', description: 'On a tool message: the call it answers' },
  },
};

export const openAiCompatOperations = [
  op({
    operationId: 'openAiChatCompletions',
    method: 'post',
    path: '/v1/chat/completions',
    summary:
      "OpenAI-compatible chat completions (beyond the spec; API key with scope agents:write). model = id or slug of an agent of the key's organization; the last user message is the chat message, earlier user/assistant messages the history, system messages the per-message system prompt override. stream true: chat.completion.chunk SSE frames ending with data: [DONE] (an agent without streamingEnabled sends its answer as one chunk); else a chat.completion object with usage. Extra field: sources. Billing, credits and retrieval as in /api/bots/:id/chat. Errors use OpenAI's shape {error: {message, type, param, code}} so OpenAI's clients show them. tools/tool_choice reach the agent's model when it supports tool calls (the catalogue's capabilities.tools and a provider that sends tools): the model's tool calls are returned unrun (message.tool_calls, finish_reason tool_calls; streamed as tool_calls deltas), and tool-role messages after the last user message carry the client's results back. Otherwise tools are refused (400, param tools); functions always are.",
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
          maxItems: 128,
          description:
            "Client-defined function tools ({type: function, function: {name, description, parameters}}), passed to the agent's model when it supports tool calls; its calls come back unrun in message.tool_calls with finish_reason tool_calls. Refused in OpenAI error shape (400, param tools) when the model does not support tools.",
          items: { type: 'object' },
        },
        tool_choice: {
          description:
            'none, auto, required, or {type: function, function: {name}} naming one of tools; anything but none needs a model that supports tools',
        },
        functions: { type: 'array', description: 'Deprecated OpenAI field; not supported (use tools)' },
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
