/**
 * CPU-heavy or hostile-input work kept off the event loop that serves requests (docs/CONVENTIONS.md "Keep the request
 * loop free"): parsing untrusted files, chunking, summaries, offline embeddings. The adapter runs each task in
 * a pool of worker threads, bounded in time, memory and unpacked size; a task that breaks a bound rejects with
 * a DomainError naming the bound (`PAYLOAD_TOO_LARGE` "... too large when unpacked ...", `VALIDATION` "... took
 * longer than ..."), so the one document, attachment or request that carried it fails and nothing else waits.
 */
import type { LoadedDocument, LoadInput } from './document-loader';
import type { GraphExtraction, GraphExtractor } from './graph-extractor';
import type { WorkAttribution } from './work-attribution';

export interface ChunkOptions {
  /** Maximum characters per chunk (default 1000). */
  size?: number;
  /** Characters shared with the previous chunk, approximately (default 200); must be below size. */
  overlap?: number;
}

export interface TextChunk {
  index: number;
  content: string;
  /** Offset of the first character in the normalised text. */
  start: number;
  /** Offset after the last character in the normalised text. */
  end: number;
}

/** The document map's extractive summary and topics (core/knowledge/summarize.ts). */
export interface DocumentDigest {
  summary: string;
  topics: string[];
}

/** Every task the pool runs: its input and its output (both structured-cloneable). */
export interface HeavyTasks {
  /** Text, title and metadata of a file (not images, audio or video: those call a model, see DocumentLoader). */
  'document.extract': { input: LoadInput; output: LoadedDocument };
  'text.chunk': { input: { text: string; options: ChunkOptions }; output: TextChunk[] };
  'text.summarize': { input: { text: string; title?: string }; output: DocumentDigest };
  /** The offline embedder's vectors (local/hash-embed), as float32 rows. */
  'embed.local': { input: { texts: string[]; dimensions: number }; output: { vectors: Float32Array[]; tokens: number } };
  /** The offline graph extractor (core/graph/offline-extractor.ts) over a document's chunks. */
  'graph.extractOffline': { input: Parameters<GraphExtractor['extract']>[0]; output: GraphExtraction };
}
export type HeavyTaskName = keyof HeavyTasks;

export { type WorkAttribution, workTenant } from './work-attribution';

export interface HeavyWork {
  readonly id: string;
  run<K extends HeavyTaskName>(task: K, input: HeavyTasks[K]['input'], work?: WorkAttribution): Promise<HeavyTasks[K]['output']>;
  /** Tasks running and waiting, for health and benchmarks. */
  stats(): { threads: number; running: number; queued: number };
  /** Per tenant: running, waiting, tasks started and thread time used (ms) since the start, when the adapter counts them. */
  usage?(): { tenant: string; running: number; queued: number; tasks: number; threadMs: number }[];
  close(): Promise<void>;
}
export const HEAVY_WORK = Symbol.for('HeavyWork');
