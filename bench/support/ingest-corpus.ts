import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { Knex } from 'knex';

/** Prose with enough distinct words that chunks differ (the embedder and the full-text index see real text). */
export function markdown(bytes: number): string {
  const words = 'volcano magma tiltmeter seismometer crater summit sulfur eruption flank swelling basalt lava ash plume caldera vent'.split(
    ' ',
  );
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const sentence = Array.from({ length: 14 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
    const line = i % 12 === 0 ? `\n## Section ${i / 12}\n\n` : `Observation ${i}: the ${sentence} near station ${i % 97}.\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

/**
 * About `bytes` of real prose and code: the READMEs of the retrieval evaluation's corpus (permissively licensed npm
 * packages, bench/eval/corpus.json) as markdown sections, repeated if needed. Unlike `markdown`, whose 16 words make
 * every chunk's vector nearly the same, these give the HNSW graph the spread real documents give it.
 */
export function readmeMarkdown(bytes: number): string {
  const corpus = JSON.parse(readFileSync(join(__dirname, '..', 'eval', 'corpus.json'), 'utf8')) as {
    documents: { title: string; text: string }[];
  };
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const doc = corpus.documents[i % corpus.documents.length];
    const section = `\n# ${doc.title}${i >= corpus.documents.length ? ` (${Math.floor(i / corpus.documents.length) + 1})` : ''}\n\n${doc.text}\n`;
    parts.push(section);
    size += section.length;
  }
  return parts.join('').slice(0, bytes);
}

/**
 * recall@10 of the HNSW index (hnsw.ef_search 100, the index's default) against exact search (index scans off)
 * on the ingested rows: 50 queries, each a stored vector with a small change, so it is not its own answer.
 */
export async function recallAt10(knex: Knex, table: string, vectors: string[]): Promise<{ queries: number; recall: number }> {
  const queries = 50;
  let hits = 0;
  for (let i = 0; i < queries; i++) {
    const v = JSON.parse(vectors[(i * 61 + 7) % vectors.length]) as number[];
    const q = `[${v.map((x, j) => (j % 7 === i % 7 ? x + 0.01 : x)).join(',')}]`;
    const nearest = (setting: string) =>
      knex.transaction(async (trx) => {
        await trx.raw(setting);
        const r = await trx.raw(`SELECT id FROM ${table} ORDER BY embedding <=> ? LIMIT 10`, [q]);
        return r.rows.map((row: { id: string }) => row.id) as string[];
      });
    const exact = new Set(await nearest('SET LOCAL enable_indexscan = off'));
    hits += (await nearest('SET LOCAL hnsw.ef_search = 100')).filter((id) => exact.has(id)).length;
  }
  return { queries, recall: +(hits / (queries * 10)).toFixed(3) };
}
