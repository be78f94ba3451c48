/**
 * Puts an indexed text document into a knowledge base without the upload endpoint (not built yet when the
 * chat tests were written): the document row (completed) plus its chunks, embedded with the platform's
 * embedder and written through the platform's vector index, as the ingestion pipeline would.
 */
import { randomUUID } from 'node:crypto';

import { chunkId } from '../../core/knowledge/chunk-id';
import type { VectorChunk } from '../../core/ports/vector-index';
import type { TestPlatform } from '../support/platform';

type Platform = Pick<TestPlatform, 'infra' | 'store'>;

export async function seedDocument(
  p: Platform,
  organizationId: string,
  knowledgeBaseId: string,
  title: string,
  chunks: string[],
  options: { summary?: string } = {},
): Promise<string> {
  const kb = await p.store.repos.knowledgeBases.findById(organizationId, knowledgeBaseId);
  if (!kb) throw new Error(`knowledge base ${knowledgeBaseId} not found`);
  const now = new Date().toISOString();
  const id = randomUUID();
  await p.infra.db.knex('knowledge_documents').insert({
    id,
    organization_id: organizationId,
    knowledge_base_id: knowledgeBaseId,
    title,
    mime_type: 'text/plain',
    file_size_bytes: chunks.join('\n').length,
    processing_status: 'completed',
    chunk_count: chunks.length,
    summary: options.summary ?? chunks[0].slice(0, 120),
    topics: JSON.stringify([]),
    created_at: now,
    updated_at: now,
    processed_at: now,
  });
  await writeChunks(p, organizationId, knowledgeBaseId, id, title, chunks);
  return id;
}

export async function writeChunks(
  p: Platform,
  organizationId: string,
  knowledgeBaseId: string,
  documentId: string,
  title: string,
  texts: string[],
  batch = 256,
) {
  const kb = (await p.store.repos.knowledgeBases.findById(organizationId, knowledgeBaseId))!;
  const { embedder, vectorIndex } = p.infra.knowledge;
  for (let i = 0; i < texts.length; i += batch) {
    const slice = texts.slice(i, i + batch);
    const { vectors } = await embedder.embed(slice, { dimensions: kb.settings.embedding.dimensions, purpose: 'document' });
    const chunks: VectorChunk[] = slice.map((content, j) => ({
      id: chunkId(documentId, i + j),
      organizationId,
      knowledgeBaseId,
      documentId,
      chunkIndex: i + j,
      content,
      embedding: vectors[j],
      embeddingType: 'text',
      importance: 0.5,
      metadata: { documentTitle: title },
    }));
    await vectorIndex.upsert(chunks);
  }
}

/** Parses an SSE body into its JSON (or raw) data payloads. */
export function sseData(text: string): any[] {
  return text
    .split('\n\n')
    .map((f) =>
      f
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n'),
    )
    .filter(Boolean)
    .map((d) => {
      try {
        return JSON.parse(d);
      } catch {
        return d;
      }
    });
}
