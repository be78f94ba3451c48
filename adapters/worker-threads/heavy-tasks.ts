/**
 * What each heavy task does; the same functions run in a worker thread (worker-threads adapter) or inline
 * (in-process adapter). Files are parsed by the multi-format loader without model-backed formats: images,
 * audio and video call a provider over the network, which is not CPU work and stays with the caller.
 */
import { offlineGraphExtractor } from '../../core/graph/offline-extractor';
import { chunkText } from '../../core/knowledge/chunker';
import { summarize } from '../../core/knowledge/summarize';
import type { HeavyTaskName, HeavyTasks } from '../../core/ports/heavy-work';
import { type ExtractionLimits, MultiFormatDocumentLoader } from '../documents/multi-format.document-loader';
import { LocalEmbedder } from '../local-ai/local-hash.embedder';

export type HeavyTaskHandlers = { [K in HeavyTaskName]: (input: HeavyTasks[K]['input']) => Promise<HeavyTasks[K]['output']> };

/** Settings every thread receives (as workerData). */
export interface HeavyTaskSettings {
  limits: ExtractionLimits;
}

/** Buffers arrive in a thread as plain Uint8Arrays; parsers want Buffer methods back (no copy). */
const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));

export function heavyTaskHandlers(settings: HeavyTaskSettings): HeavyTaskHandlers {
  const loader = new MultiFormatDocumentLoader({ limits: settings.limits });
  const embedder = new LocalEmbedder();
  return {
    'document.extract': async (input) => loader.load({ ...input, bytes: asBuffer(input.bytes) }),
    'text.chunk': async ({ text, options }) => chunkText(text, options),
    'text.summarize': async ({ text, title }) => summarize(text, title === undefined ? {} : { title }),
    'embed.local': async ({ texts, dimensions }) => {
      const result = await embedder.embed(texts, { dimensions, purpose: 'document' });
      // float32 rows move to the caller without a copy; the vector stores keep float32 anyway
      return { vectors: result.vectors.map((v) => Float32Array.from(v)), tokens: result.usage.tokens };
    },
    'graph.extractOffline': async (input) => offlineGraphExtractor.extract(input),
  };
}

/** Buffers of a task's output that can move to the caller instead of being copied. */
export function transferablesOf(output: unknown): ArrayBuffer[] {
  const rows = (output as { vectors?: unknown } | null)?.vectors;
  if (!Array.isArray(rows)) return [];
  return rows.filter((r): r is Float32Array => r instanceof Float32Array).map((r) => r.buffer as ArrayBuffer);
}
