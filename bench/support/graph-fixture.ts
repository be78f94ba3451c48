/**
 * The synthetic graph of the graph benchmark: `entities` entities and about `relationships` random
 * relationships in one knowledge base, written through the store's own replaceDocument (100 entities a
 * document; each document also mentions the targets of its relationships, so keys resolve to shared entities).
 */
import { randomUUID } from 'node:crypto';

import { keysOf } from '../../core/graph/names';
import type { DocumentGraph, GraphScope, GraphStore } from '../../core/ports/graph-store';

export const syntheticName = (i: number) => `Entity ${i} Node`;

/** A small deterministic generator (LCG), so every run builds the same graph. */
export function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

export async function loadSyntheticGraph(
  graph: GraphStore,
  scope: GraphScope,
  entities: number,
  relationships: number,
  random: () => number,
) {
  const perDoc = 100;
  for (let d = 0; d * perDoc < entities; d++) {
    const ids = Array.from({ length: perDoc }, (_, k) => d * perDoc + k).filter((i) => i < entities);
    const rels = Array.from({ length: Math.round((relationships * ids.length) / entities) }, () => {
      const s = ids[Math.floor(random() * ids.length)];
      const t = Math.floor(random() * entities);
      return { s, t };
    });
    const mentioned = [...new Set([...ids, ...rels.map((r) => r.t)])];
    const doc: DocumentGraph = {
      entities: mentioned.map((i) => ({
        keys: keysOf(syntheticName(i), []),
        name: syntheticName(i),
        type: i % 3 ? 'concept' : 'person',
        aliases: [],
        confidence: 0.7,
        mentions: [{ chunkIndex: 0, count: 1 }],
      })),
      relationships: rels
        .filter((r) => r.s !== r.t)
        .map((r) => ({
          sourceKey: keysOf(syntheticName(r.s), [])[0],
          targetKey: keysOf(syntheticName(r.t), [])[0],
          type: 'related_to',
          weight: 0.5,
          chunkIndex: 0,
        })),
    };
    await graph.replaceDocument({ ...scope, documentId: randomUUID() }, doc, new Date().toISOString());
  }
}
