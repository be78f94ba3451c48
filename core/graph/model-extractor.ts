/**
 * Model-backed graph extraction: each chunk goes to a chat model with a JSON-schema structured-output
 * prompt; the reply is validated against the same schema (ajv behind the OptionsValidator port). A chunk
 * whose reply is not valid JSON of that shape counts as failed (the document's graph status is then
 * `partial`, or `failed` when none succeeded). A provider error stops the calls: that chunk and the ones not
 * yet sent count as failed. Entities keep chunk-level provenance (a mention per chunk), relationships their
 * chunk and evidence sentence; pinned entities win over the model's names and types. Token usage is summed
 * for billing by the caller.
 */
import type { ChatModel } from '../ports/chat-model';
import type { ExtractedEntity, ExtractedRelationship, GraphExtraction, GraphExtractor } from '../ports/graph-extractor';
import type { PinnedEntity } from '../ports/graph-store';
import { type CompiledSchema, parseStructuredReply } from '../shared/structured-reply';
import { EXTRACTION_SCHEMA, extractionPrompt, type ModelExtraction } from './model-extraction-schema';
import { cleanName, foldName, normalizeType } from './names';

/** A schema compiled by the OptionsValidator port. */
export type { CompiledSchema };

/** Chunks sent at once to the provider. */
const CONCURRENCY = 3;
const MAX_COMPLETION_TOKENS = 2000;
const DEFAULT_CONFIDENCE = 0.7;
const DEFAULT_WEIGHT = 0.7;

export interface ModelExtractorDeps {
  chat: ChatModel;
  /** Catalogue id of the model (`openai/gpt-4o-mini`). */
  model: string;
  /** The extraction schema compiled by the OptionsValidator port (ajv outside the core). */
  validate: CompiledSchema;
}

interface Entry {
  name: string;
  type: string;
  pinned: boolean;
  aliases: Set<string>;
  confidence: number;
  mentions: Map<number, number>;
}

/** Merges per-chunk model output into one extraction, entities by folded name, pinned entities first. */
export function mergeChunkExtractions(chunks: { index: number; output: ModelExtraction }[], pinned: PinnedEntity[]) {
  const byKey = new Map<string, Entry>();
  const entries: Entry[] = [];
  const remember = (label: string, entry: Entry) => {
    const key = foldName(label);
    if (key && !byKey.has(key)) byKey.set(key, entry);
  };
  for (const p of pinned) {
    const entry: Entry = {
      name: p.name,
      type: normalizeType(p.type),
      pinned: true,
      aliases: new Set(p.aliases),
      confidence: 1,
      mentions: new Map(),
    };
    for (const label of [p.name, ...p.aliases]) remember(label, entry);
  }
  const relationships: ExtractedRelationship[] = [];
  for (const { index, output } of chunks) {
    const local = new Map<string, Entry>();
    for (const e of output.entities) {
      const name = cleanName(e.name);
      const aliases = (e.aliases ?? []).map(cleanName).filter(Boolean);
      if (!foldName(name)) continue;
      let entry = [name, ...aliases].map((l) => byKey.get(foldName(l))).find(Boolean);
      if (!entry) {
        entry = { name, type: normalizeType(e.type), pinned: false, aliases: new Set(), confidence: 0, mentions: new Map() };
        entries.push(entry);
      }
      if (!entry.pinned) entry.confidence = Math.max(entry.confidence, e.confidence ?? DEFAULT_CONFIDENCE);
      for (const label of [name, ...aliases]) {
        const key = foldName(label);
        if (![entry.name, ...entry.aliases].some((known) => foldName(known) === key)) entry.aliases.add(label);
        remember(label, entry);
        local.set(foldName(label), entry);
      }
      entry.mentions.set(index, (entry.mentions.get(index) ?? 0) + 1);
      if (entry.pinned && !entries.includes(entry)) entries.push(entry);
    }
    for (const r of output.relationships) {
      // both ends must be entities the model named in this chunk
      const source = local.get(foldName(r.source));
      const target = local.get(foldName(r.target));
      if (!source || !target || source === target) continue;
      relationships.push({
        source: source.name,
        target: target.name,
        type: normalizeType(r.type),
        weight: Math.max(0, Math.min(1, r.weight ?? DEFAULT_WEIGHT)),
        chunkIndex: index,
        ...(r.evidence ? { evidence: r.evidence } : {}),
      });
    }
  }
  const entities: ExtractedEntity[] = entries.map((e) => ({
    name: e.name,
    type: e.type,
    aliases: [...e.aliases].filter((a) => a !== e.name).sort(),
    confidence: e.confidence,
    mentions: [...e.mentions.entries()].map(([chunkIndex, count]) => ({ chunkIndex, count })),
  }));
  return { entities, relationships };
}

/** Parses and validates one reply; null when it is not JSON of the extraction schema. */
export const parseReply = (text: string, validate: CompiledSchema): ModelExtraction | null =>
  parseStructuredReply(text, validate) as unknown as ModelExtraction | null;

export function modelGraphExtractor(deps: ModelExtractorDeps): GraphExtractor {
  return {
    id: `model:${deps.model}`,
    async extract(input): Promise<GraphExtraction> {
      const outputs: { index: number; output: ModelExtraction }[] = [];
      const failed: number[] = [];
      let promptTokens = 0;
      let completionTokens = 0;
      let stopped = false;
      const queue = [...input.chunks];
      const worker = async () => {
        for (let chunk = queue.shift(); chunk; chunk = queue.shift()) {
          if (stopped) {
            failed.push(chunk.index);
            continue;
          }
          try {
            const completion = await deps.chat.complete({
              model: deps.model,
              messages: extractionPrompt(input.documentTitle, chunk.content, input.pinned),
              temperature: 0,
              maxTokens: MAX_COMPLETION_TOKENS,
              responseFormat: { type: 'json_schema', name: 'graph_extraction', schema: EXTRACTION_SCHEMA },
            });
            promptTokens += completion.usage.promptTokens;
            completionTokens += completion.usage.completionTokens;
            const output = completion.finishReason === 'stop' ? parseReply(completion.text, deps.validate) : null;
            if (output) outputs.push({ index: chunk.index, output });
            else failed.push(chunk.index);
          } catch {
            // a provider error (limits, credits, outage): no further calls for this document
            stopped = true;
            failed.push(chunk.index);
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(CONCURRENCY, input.chunks.length) }, worker));
      const { entities, relationships } = mergeChunkExtractions(
        outputs.sort((a, b) => a.index - b.index),
        input.pinned,
      );
      return {
        entities,
        relationships,
        failedChunks: failed.sort((a, b) => a - b),
        usage: promptTokens + completionTokens > 0 ? { model: deps.model, promptTokens, completionTokens } : null,
      };
    },
  };
}
