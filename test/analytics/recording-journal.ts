/**
 * Shared by the crash-safe recording tests: a knowledge base to record against and the rows recorded for it.
 */
import { randomUUID } from 'node:crypto';

import type { Knex } from 'knex';

import type { RetrievalEvent } from '../../core/ports/retrieval-recorder';
import { seedOrganization } from './seed-analytics';

export interface RecordingTarget {
  organizationId: string;
  agentId: string;
  knowledgeBaseIds: [string, string];
}

export async function seedRecordingTarget(db: Knex): Promise<RecordingTarget> {
  const org = await seedOrganization(db, 1);
  const now = new Date();
  const knowledgeBaseIds: [string, string] = [randomUUID(), randomUUID()];
  await db('knowledge_bases').insert(
    knowledgeBaseIds.map((id, i) => ({ id, organization_id: org.organizationId, name: `KB ${i}`, created_at: now, updated_at: now })),
  );
  return { organizationId: org.organizationId, agentId: org.agentIds[0] as string, knowledgeBaseIds };
}

/** Event `n`: query `q-<n>`, searches both knowledge bases when n is even (two query rows), returns 2 chunks of the first. */
export function retrievalEvent(t: RecordingTarget, n: number): RetrievalEvent {
  const [a, b] = t.knowledgeBaseIds;
  return {
    organizationId: t.organizationId,
    source: 'chat',
    agentId: t.agentId,
    conversationId: null,
    messageId: null,
    query: `q-${n}`,
    knowledgeBaseIds: n % 2 === 0 ? [a, b] : [a],
    chunks: [0, 1].map((i) => ({ chunkId: randomUUID(), knowledgeBaseId: a, documentId: randomUUID(), score: 0.5 + i / 10 })),
    costUsd: 0.001,
    at: new Date().toISOString(),
  };
}

/** Query rows and chunk hits per recorded query text. */
export async function recordedRows(db: Knex, t: RecordingTarget) {
  const queries = (await db('analytics_kb_queries')
    .where({ organization_id: t.organizationId })
    .select('query')
    .count({ n: '*' })
    .groupBy('query')) as { query: string; n: string | number }[];
  const hits = (await db('analytics_chunk_hits as h')
    .join('analytics_kb_queries as q', 'q.id', 'h.query_id')
    .where('q.organization_id', t.organizationId)
    .select('q.query')
    .count({ n: '*' })
    .groupBy('q.query')) as { query: string; n: string | number }[];
  return {
    queries: new Map(queries.map((r) => [r.query, Number(r.n)])),
    hits: new Map(hits.map((r) => [r.query, Number(r.n)])),
  };
}

/** What event `n` must leave: its query rows (one per searched knowledge base) and its two chunk hits. */
export const expectedRows = (n: number) => ({ queries: n % 2 === 0 ? 2 : 1, hits: 2 });
