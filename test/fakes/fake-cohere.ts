import { FakeHttpServer, type FakeReply, type RecordedRequest, sseFrame } from './fake-http-server';

/**
 * A fake of Cohere's v2 HTTP API answering like the real one (snake_case JSON): embed, rerank, chat and the
 * chat stream (`event:` + `data:` frames from message-start to message-end with usage). `reply` sets the text.
 */
export class FakeCohere extends FakeHttpServer {
  reply = 'Refunds take fourteen days.';

  constructor(sseDelayMs = 2) {
    super((request) => route(this, request), sseDelayMs);
  }
}

/** Error bodies as the API sends them. */
export const cohereErrorBody = (message: string) => ({ id: 'err-fake', message });

const words = (text: string) => text.match(/\S+\s*/g) ?? [];
const tokenCount = (text: string) => words(text).length;

/** Deterministic, deliberately not unit-length vector: [length of text, 1, 0, 0, ...]. */
export function fakeCohereVector(text: string, dimensions: number): number[] {
  const v = new Array<number>(dimensions).fill(0);
  v[0] = text.length;
  if (dimensions > 1) v[1] = 1;
  return v;
}

function route(fake: FakeCohere, request: RecordedRequest): FakeReply | undefined {
  const body = request.json ?? {};
  switch (`${request.method} ${request.path}`) {
    case 'POST /v2/embed': {
      const texts: string[] = body.texts ?? [];
      const dimensions = body.output_dimension ?? 1024;
      return {
        json: {
          id: 'embed-fake',
          embeddings: { float: texts.map((t) => fakeCohereVector(t, dimensions)) },
          texts,
          meta: { api_version: { version: '2' }, billed_units: { input_tokens: texts.reduce((n, t) => n + tokenCount(t), 0) } },
          response_type: 'embeddings_by_type',
        },
      };
    }
    case 'POST /v2/rerank': {
      const query = new Set(String(body.query).toLowerCase().split(/\W+/).filter(Boolean));
      const scored = (body.documents as string[]).map((d, index) => {
        const ws = d.toLowerCase().split(/\W+/).filter(Boolean);
        return { index, relevance_score: ws.filter((w) => query.has(w)).length / Math.max(1, query.size) };
      });
      scored.sort((a, b) => b.relevance_score - a.relevance_score);
      return {
        json: {
          id: 'rerank-fake',
          results: scored.slice(0, body.top_n ?? scored.length),
          meta: { api_version: { version: '2' }, billed_units: { search_units: 1 } },
        },
      };
    }
    case 'POST /v2/chat':
      return body.stream ? { sse: chatStreamFrames(fake.reply, body) } : chatResponse(fake.reply, body);
    default:
      return undefined;
  }
}

function promptTokens(body: any): number {
  return (body.messages ?? []).reduce((n: number, m: any) => n + tokenCount(String(m.content)), 0);
}

function usage(text: string, body: any) {
  const input = promptTokens(body);
  const output = tokenCount(text);
  // tokens include Cohere's own prompt template; billed units are what is charged
  return { billed_units: { input_tokens: input, output_tokens: output }, tokens: { input_tokens: input + 200, output_tokens: output } };
}

function chatResponse(text: string, body: any): FakeReply {
  return {
    json: {
      id: 'chat-fake',
      finish_reason: 'COMPLETE',
      message: { role: 'assistant', content: [{ type: 'text', text }] },
      usage: usage(text, body),
    },
  };
}

/** The frames of a v2 chat stream, as the API sends them. */
export function chatStreamFrames(text: string, body: any, options: { finishReason?: string; error?: string } = {}): string[] {
  const frames = [
    sseFrame(
      {
        id: 'chat-fake',
        type: 'message-start',
        delta: { message: { role: 'assistant', content: [], tool_plan: '', tool_calls: [], citations: [] } },
      },
      'message-start',
    ),
    sseFrame({ type: 'content-start', index: 0, delta: { message: { content: { type: 'text', text: '' } } } }, 'content-start'),
  ];
  for (const word of words(text)) {
    frames.push(sseFrame({ type: 'content-delta', index: 0, delta: { message: { content: { text: word } } } }, 'content-delta'));
  }
  frames.push(sseFrame({ type: 'content-end', index: 0 }, 'content-end'));
  frames.push(
    sseFrame(
      {
        type: 'message-end',
        delta: {
          finish_reason: options.finishReason ?? 'COMPLETE',
          ...(options.error ? { error: options.error } : {}),
          usage: usage(text, body),
        },
      },
      'message-end',
    ),
  );
  return frames;
}
