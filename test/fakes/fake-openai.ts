import { FakeHttpServer, type FakeReply, type RecordedRequest, sseFrame } from './fake-http-server';

/**
 * A fake of the OpenAI HTTP API (under `/v1`) answering like the real one: embeddings, chat completions
 * (JSON and SSE with the usage chunk), audio transcriptions and speech. `reply` sets the assistant text.
 */
export class FakeOpenAi extends FakeHttpServer {
  /** Text of the next chat completions. */
  reply = 'Refunds take fourteen days.';
  /** Text of the next audio transcriptions. */
  transcript = ' Hello from the recording. ';
  /** Base URL to give the SDK (`http://127.0.0.1:<port>/v1`). */
  baseURL = '';
  /** Answers of the next chat completions that call tools instead of replying (one entry per completion). */
  readonly toolTurns: FakeToolCall[][] = [];

  constructor(sseDelayMs = 2) {
    super((request) => route(this, request), sseDelayMs);
  }

  override async start(): Promise<string> {
    this.baseURL = `${await super.start()}/v1`;
    return this.baseURL;
  }
}

/** A tool call the fake model makes: `arguments` is sent as the JSON text of this object. */
export interface FakeToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** `{"error": {...}}` bodies exactly as the API sends them. */
export const openAiErrorBody = (message: string, type: string, code: string | null = null) => ({
  error: { message, type, param: null, code },
});

/** Deterministic, deliberately not unit-length vector: [length of text, 1, 0, 0, ...]. */
export function fakeVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  v[0] = text.length;
  if (dimensions > 1) v[1] = 1;
  return v;
}

const words = (text: string) => text.match(/\S+\s*/g) ?? [];
const tokenCount = (text: string) => words(text).length;

function route(fake: FakeOpenAi, request: RecordedRequest): FakeReply | undefined {
  const body = request.json ?? {};
  switch (`${request.method} ${request.path}`) {
    case 'POST /v1/embeddings': {
      const input: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const dimensions = body.dimensions ?? 1536;
      const tokens = input.reduce((n, t) => n + tokenCount(t), 0);
      return {
        json: {
          object: 'list',
          // out of order on purpose: clients must sort by index
          data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t, dimensions) })).reverse(),
          model: body.model,
          usage: { prompt_tokens: tokens, total_tokens: tokens },
        },
      };
    }
    case 'POST /v1/chat/completions': {
      const calls = fake.toolTurns.shift();
      if (calls) return body.stream ? { sse: toolCallStreamFrames(calls, body) } : toolCallCompletion(calls, body);
      return body.stream ? chatStream(fake.reply, body) : chatCompletion(fake.reply, body);
    }
    case 'POST /v1/audio/transcriptions':
      return { json: { task: 'transcribe', language: 'english', duration: 3.5, text: fake.transcript, segments: [] } };
    case 'POST /v1/audio/speech':
      return { headers: { 'content-type': 'audio/mpeg' }, body: Buffer.from('ID3\u0004fake-mp3-bytes') };
    default:
      return undefined;
  }
}

function promptTokens(body: any): number {
  return (body.messages ?? []).reduce((n: number, m: any) => n + (typeof m.content === 'string' ? tokenCount(m.content) : 10), 0);
}

function chatCompletion(text: string, body: any): FakeReply {
  const prompt = promptTokens(body);
  const completion = tokenCount(text);
  return {
    json: {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [{ index: 0, message: { role: 'assistant', content: text, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
    },
  };
}

/** The frames the API streams: a role chunk, one chunk per word, a finish chunk, the usage chunk, `[DONE]`. */
export function chatStreamFrames(text: string, body: any, options: { usage?: boolean; finishReason?: string } = {}): string[] {
  const base = {
    id: 'chatcmpl-fake',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: body.model,
    system_fingerprint: 'fp_fake',
  };
  const includeUsage = options.usage ?? Boolean(body.stream_options?.include_usage);
  const frames = [
    sseFrame({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '', refusal: null }, logprobs: null, finish_reason: null }],
      ...(includeUsage ? { usage: null } : {}),
    }),
  ];
  for (const word of words(text)) {
    frames.push(
      sseFrame({
        ...base,
        choices: [{ index: 0, delta: { content: word }, logprobs: null, finish_reason: null }],
        ...(includeUsage ? { usage: null } : {}),
      }),
    );
  }
  frames.push(
    sseFrame({
      ...base,
      choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: options.finishReason ?? 'stop' }],
      ...(includeUsage ? { usage: null } : {}),
    }),
  );
  if (includeUsage) {
    const prompt = promptTokens(body);
    const completion = tokenCount(text);
    frames.push(
      sseFrame({
        ...base,
        choices: [],
        usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
      }),
    );
  }
  frames.push(sseFrame('[DONE]'));
  return frames;
}

function chatStream(text: string, body: any): FakeReply {
  return { sse: chatStreamFrames(text, body) };
}

const USAGE_OF_CALLS = 12;

function toolCallCompletion(calls: FakeToolCall[], body: any): FakeReply {
  const prompt = promptTokens(body);
  return {
    json: {
      id: 'chatcmpl-fake-tools',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: body.model,
      choices: [
        {
          index: 0,
          message: {
            role: 'assistant',
            content: null,
            refusal: null,
            tool_calls: calls.map((c) => ({
              id: c.id,
              type: 'function',
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: prompt, completion_tokens: USAGE_OF_CALLS, total_tokens: prompt + USAGE_OF_CALLS },
    },
  };
}

/** Streamed tool calls as the API sends them: id and name first, then the arguments in two pieces. */
function toolCallStreamFrames(calls: FakeToolCall[], body: any): string[] {
  const base = { id: 'chatcmpl-fake-tools', object: 'chat.completion.chunk', created: 1_700_000_000, model: body.model };
  const frame = (delta: unknown, finish: string | null = null) =>
    sseFrame({ ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] });
  const frames = [frame({ role: 'assistant', content: null })];
  calls.forEach((c, index) => {
    const args = JSON.stringify(c.arguments);
    const half = Math.ceil(args.length / 2);
    frames.push(frame({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }));
    frames.push(frame({ tool_calls: [{ index, function: { arguments: args.slice(0, half) } }] }));
    frames.push(frame({ tool_calls: [{ index, function: { arguments: args.slice(half) } }] }));
  });
  frames.push(frame({}, 'tool_calls'));
  if (body.stream_options?.include_usage) {
    const prompt = promptTokens(body);
    frames.push(
      sseFrame({
        ...base,
        choices: [],
        usage: { prompt_tokens: prompt, completion_tokens: USAGE_OF_CALLS, total_tokens: prompt + USAGE_OF_CALLS },
      }),
    );
  }
  frames.push(sseFrame('[DONE]'));
  return frames;
}
