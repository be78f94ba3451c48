/**
 * The model-backed extractor on its own: a scripted chat model answers per chunk, the real ajv validator
 * checks the replies. Pinned entities win, provenance is per chunk, a malformed reply fails its chunk and a
 * provider error stops further calls.
 */
import { extractionModelOf } from '../../core/graph/extraction-step';
import { EXTRACTION_SCHEMA } from '../../core/graph/model-extraction-schema';
import { modelGraphExtractor, parseReply } from '../../core/graph/model-extractor';
import type { ChatCompletion, ChatModel, ChatRequest } from '../../core/ports/chat-model';
import { DomainError } from '../../core/shared/errors';
import { ajvOptionsValidator } from '../../plugins/kit/ajv-options-validator';

const validate = ajvOptionsValidator().compile(EXTRACTION_SCHEMA);

/** Answers each chunk by a function of its passage text; counts calls. */
class ScriptedExtractionModel implements ChatModel {
  readonly id = 'scripted';
  readonly requests: ChatRequest[] = [];
  constructor(private readonly answer: (passage: string) => string | Error) {}
  supports = () => true;
  async complete(request: ChatRequest): Promise<ChatCompletion> {
    this.requests.push(request);
    const passage = request.messages[1].content.split('Passage:\n')[1];
    const text = this.answer(passage);
    if (text instanceof Error) throw text;
    return { text, usage: { promptTokens: 100, completionTokens: 20, totalTokens: 120 }, finishReason: 'stop' };
  }
  // eslint-disable-next-line require-yield
  async *stream(): AsyncIterable<never> {
    throw new Error('not used');
  }
}

const reply = (entities: unknown[], relationships: unknown[] = []) => JSON.stringify({ entities, relationships });
const chunks = (...texts: string[]) => texts.map((content, index) => ({ index, content }));

describe('model graph extractor', () => {
  it('merges chunks into entities with per-chunk mentions; pinned names and types win', async () => {
    const chat = new ScriptedExtractionModel((passage) =>
      passage.startsWith('one')
        ? reply(
            [
              { name: 'the engine', type: 'concept' },
              { name: 'Charles Babbage', type: 'person', aliases: ['Babbage'] },
            ],
            [{ source: 'Babbage', target: 'the engine', type: 'Created', evidence: 'Babbage built it.' }],
          )
        : reply([{ name: 'babbage', type: 'organization', confidence: 0.4 }]),
    );
    const x = await modelGraphExtractor({ chat, model: 'openai/x', validate }).extract({
      documentTitle: 'Engines',
      chunks: chunks('one', 'two'),
      pinned: [{ name: 'Analytical Engine', type: 'product', aliases: ['the engine'] }],
    });
    expect(x.failedChunks).toEqual([]);
    expect(x.usage).toEqual({ model: 'openai/x', promptTokens: 200, completionTokens: 40 });
    expect(x.entities).toEqual([
      { name: 'Analytical Engine', type: 'product', aliases: ['the engine'], confidence: 1, mentions: [{ chunkIndex: 0, count: 1 }] },
      {
        name: 'Charles Babbage',
        type: 'person',
        aliases: ['Babbage'], // 'babbage' folds to a known alias
        confidence: 0.7,
        mentions: [
          { chunkIndex: 0, count: 1 },
          { chunkIndex: 1, count: 1 },
        ],
      },
    ]);
    expect(x.relationships).toEqual([
      {
        source: 'Charles Babbage',
        target: 'Analytical Engine',
        type: 'created',
        weight: 0.7,
        chunkIndex: 0,
        evidence: 'Babbage built it.',
      },
    ]);
    // the pinned entity is named in the prompt, the schema goes as the response format
    expect(chat.requests[0].messages[0].content).toContain('- Analytical Engine (product), also: the engine');
    expect(chat.requests[0].responseFormat).toEqual({ type: 'json_schema', name: 'graph_extraction', schema: EXTRACTION_SCHEMA });
  });

  it('fails a chunk whose reply is not JSON of the schema, keeps the others', async () => {
    const chat = new ScriptedExtractionModel((passage) =>
      passage === 'bad json'
        ? 'Sure! Here are the entities: Ada'
        : passage === 'bad shape'
          ? reply([{ name: 'Ada' }])
          : reply([{ name: 'Ada', type: 'person' }]),
    );
    const x = await modelGraphExtractor({ chat, model: 'openai/x', validate }).extract({
      documentTitle: 'T',
      chunks: chunks('good', 'bad json', 'bad shape'),
      pinned: [],
    });
    expect(x.failedChunks).toEqual([1, 2]);
    expect(x.entities.map((e) => e.name)).toEqual(['Ada']);
    expect(x.usage?.promptTokens).toBe(300); // every call is counted for billing
  });

  it('stops calling after a provider error; the rest of the chunks count as failed', async () => {
    const chat = new ScriptedExtractionModel(() => new DomainError('PROVIDER_LIMIT_REACHED', 'quota'));
    const x = await modelGraphExtractor({ chat, model: 'openai/x', validate }).extract({
      documentTitle: 'T',
      chunks: chunks(...Array.from({ length: 10 }, (_, i) => `c${i}`)),
      pinned: [],
    });
    expect(x.failedChunks).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(chat.requests.length).toBeLessThanOrEqual(3); // only the calls already in flight
    expect(x.usage).toBeNull();
  });

  it('reads fenced JSON and rejects arrays and extra fields', () => {
    expect(parseReply('```json\n{"entities":[],"relationships":[]}\n```', validate)).toEqual({ entities: [], relationships: [] });
    expect(parseReply('[]', validate)).toBeNull();
    expect(parseReply(JSON.stringify({ entities: [], relationships: [], extra: 1 }), validate)).toBeNull();
  });

  it('picks the model: the knowledge base setting, else the deployment default; offline and local models mean none', () => {
    expect(extractionModelOf({}, null)).toBeNull();
    expect(extractionModelOf({}, 'openai/gpt-4o-mini')).toBe('openai/gpt-4o-mini');
    expect(extractionModelOf({ graphExtractionModel: 'openai/other' }, 'openai/gpt-4o-mini')).toBe('openai/other');
    expect(extractionModelOf({ graphExtractionModel: 'offline' }, 'openai/gpt-4o-mini')).toBeNull();
    expect(extractionModelOf({}, 'local/extractive')).toBeNull();
  });
});
