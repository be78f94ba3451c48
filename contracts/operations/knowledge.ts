import { errors, op, pageQuery } from '../operation';
import * as s from '../schemas/knowledge';
import { webhookUrlProperty } from './jobs';

const uuid = { type: 'string', format: 'uuid' } as const;
const kbParams = { type: 'object', required: ['id'], properties: { id: uuid } };
const linkParams = { type: 'object', required: ['id', 'agentId'], properties: { id: uuid, agentId: uuid } };
const agentParams = { type: 'object', required: ['agentId'], properties: { agentId: uuid } };
const docParams = { type: 'object', required: ['id', 'docId'], properties: { id: uuid, docId: uuid } };
const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const kbEnvelope = obj({ knowledgeBase: s.knowledgeBaseSchema });
const tags = ['knowledge'];

export const knowledgeOperations = [
  op({
    operationId: 'createKnowledgeBase',
    method: 'post',
    path: '/api/knowledge/kb',
    summary: 'Create a knowledge base (member role or higher; counts against the plan)',
    tags,
    auth: 'user',
    body: s.createKbBody,
    responses: { '201': { description: 'Created', schema: kbEnvelope }, ...errors(400, 401, 403) },
  }),
  op({
    operationId: 'listKnowledgeBases',
    method: 'get',
    path: '/api/knowledge/kb',
    summary: 'Knowledge bases of the active organization, newest first',
    tags,
    auth: 'user',
    query: pageQuery(50),
    responses: {
      '200': {
        description: 'Page',
        schema: obj({
          knowledgeBases: { type: 'array', items: s.knowledgeBaseSchema },
          total: { type: 'integer' },
          limit: { type: 'integer' },
          offset: { type: 'integer' },
        }),
      },
      ...errors(401, 403),
    },
  }),
  op({
    operationId: 'getKnowledgeBase',
    method: 'get',
    path: '/api/knowledge/kb/:id',
    summary: 'One knowledge base',
    tags,
    auth: 'user',
    params: kbParams,
    responses: { '200': { description: 'Knowledge base', schema: kbEnvelope }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'updateKnowledgeBase',
    method: 'patch',
    path: '/api/knowledge/kb/:id',
    summary:
      'Update name, description, visibility or settings (merged by top-level key); returns the knowledge base, also under `knowledgeBase`',
    tags,
    auth: 'user',
    params: kbParams,
    body: s.updateKbBody,
    responses: {
      '200': {
        description: 'Updated knowledge base',
        schema: {
          ...s.knowledgeBaseSchema,
          properties: { ...(s.knowledgeBaseSchema.properties as object), knowledgeBase: s.knowledgeBaseSchema },
        },
      },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  op({
    operationId: 'deleteKnowledgeBase',
    method: 'delete',
    path: '/api/knowledge/kb/:id',
    summary: 'Hard delete with documents, chunks, vectors, files, sources and agent links (audited)',
    tags,
    auth: 'user',
    params: kbParams,
    responses: { '204': { description: 'Deleted' }, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'linkKnowledgeBase',
    method: 'post',
    path: '/api/knowledge/kb/:id/agents/:agentId',
    summary: 'Link a knowledge base to an agent, or update the link (edit on both, same organization)',
    tags,
    auth: 'user',
    params: linkParams,
    body: s.linkBody,
    responses: {
      '200': { description: 'Linked', schema: obj({ message: { type: 'string' }, knowledgeBaseId: uuid, agentId: uuid }) },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'unlinkKnowledgeBase',
    method: 'delete',
    path: '/api/knowledge/kb/:id/agents/:agentId',
    summary: 'Unlink a knowledge base from an agent',
    tags,
    auth: 'user',
    params: linkParams,
    responses: { '200': { description: 'Unlinked', schema: obj({ message: { type: 'string' } }) }, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'listAgentKnowledgeBases',
    method: 'get',
    path: '/api/knowledge/agents/:agentId/kbs',
    summary: "An agent's knowledge bases with link details and source health",
    tags,
    auth: 'user',
    params: agentParams,
    responses: {
      '200': {
        description: 'Linked knowledge bases',
        schema: obj({ knowledgeBases: { type: 'array', items: s.linkedKbSchema }, count: { type: 'integer' } }),
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'agentKnowledgeDeleteImpact',
    method: 'get',
    path: '/api/knowledge/agents/:agentId/delete-impact',
    summary: "What deleting the agent's knowledge bases would affect (first 100; other agents up to five)",
    tags,
    auth: 'user',
    params: agentParams,
    responses: { '200': { description: 'Impact', schema: s.deleteImpactSchema }, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'uploadDocument',
    method: 'post',
    path: '/api/knowledge/kb/:id/documents',
    summary:
      'Upload a file (multipart part `file`): pdf, docx, doc, txt, md, csv, html, htm, png, jpg, jpeg, gif, webp, mp3, wav, m4a, ogg, mp4, webm, mov. 413 above UPLOAD_MAX_BYTES; 415 when the bytes do not match the extension or declared type; 422 (NO_MODEL_FOR_FILE_TYPE) when no configured model can process the type (an image without a vision model, audio or video without a transcription model); 400 for a second file part. The same bytes already in this knowledge base answer 200 with that document (nothing queued) unless allowDuplicate=true. Processing runs in the background as a job: follow it at /api/jobs/{jobId} (SSE at /api/jobs/{jobId}/events). An optional `webhookUrl` (a multipart text field, or the query parameter) receives its signed terminal event.',
    tags,
    auth: 'user',
    params: kbParams,
    query: {
      type: 'object',
      properties: {
        webhookUrl: webhookUrlProperty,
        allowDuplicate: {
          type: 'boolean',
          default: false,
          description: 'Store the file again even when the knowledge base already holds a document with the same bytes.',
        },
      },
    },
    body: 'multipart',
    responses: {
      '200': {
        description:
          'Duplicate: the knowledge base already holds a document with the same content (SHA-256 of the bytes); that document is returned and nothing is queued. Send allowDuplicate=true to store it again.',
        schema: obj({ document: s.documentSchema, duplicate: { const: true }, message: { type: 'string' } }),
      },
      '201': {
        description: 'Accepted, pending',
        schema: obj({ document: s.documentSchema, jobId: { type: 'string' }, message: { type: 'string' } }),
      },
      ...errors(400, 401, 403, 404, 413, 415, 422),
    },
  }),
  op({
    operationId: 'listDocuments',
    method: 'get',
    path: '/api/knowledge/kb/:id/documents',
    summary: 'Documents of a knowledge base, newest first',
    tags,
    auth: 'user',
    params: kbParams,
    query: {
      ...pageQuery(50),
      properties: { ...pageQuery(50).properties, status: { enum: ['pending', 'processing', 'completed', 'failed'] } },
    },
    responses: {
      '200': {
        description: 'Page',
        schema: obj({
          documents: { type: 'array', items: s.documentSchema },
          total: { type: 'integer' },
          limit: { type: 'integer' },
          offset: { type: 'integer' },
        }),
      },
      ...errors(400, 401, 404),
    },
  }),
  op({
    operationId: 'getDocument',
    method: 'get',
    path: '/api/knowledge/kb/:id/documents/:docId',
    summary: 'One document with its processing status and failure reason',
    tags,
    auth: 'user',
    params: docParams,
    responses: { '200': { description: 'Document', schema: obj({ document: s.documentSchema }) }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'deleteDocument',
    method: 'delete',
    path: '/api/knowledge/kb/:id/documents/:docId',
    summary: 'Delete a document, its chunks and its file',
    tags,
    auth: 'user',
    params: docParams,
    responses: {
      '200': { description: 'Deleted', schema: obj({ message: { type: 'string' }, documentId: uuid, chunksDeleted: { type: 'integer' } }) },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'retryDocument',
    method: 'post',
    path: '/api/knowledge/kb/:id/documents/:docId/retry',
    summary:
      "Re-queue a failed document (409 in any other state) as a new job (/api/jobs/{jobId}); it keeps the failed job's webhookUrl unless the optional body names another",
    tags,
    auth: 'user',
    params: docParams,
    body: { type: 'object', additionalProperties: false, properties: { webhookUrl: webhookUrlProperty } },
    responses: {
      '200': { description: 'Queued', schema: obj({ message: { type: 'string' }, documentId: uuid, jobId: { type: 'string' } }) },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  op({
    operationId: 'extractText',
    method: 'post',
    path: '/api/knowledge/extract-text',
    summary: 'Extract text and images from a file (multipart part `file`) without indexing it',
    tags,
    auth: 'user',
    body: 'multipart',
    responses: { '200': { description: 'Extracted', schema: s.extractTextSchema }, ...errors(400, 401, 403, 413, 415) },
  }),
  op({
    operationId: 'searchKnowledge',
    method: 'post',
    path: '/api/knowledge/search',
    summary:
      'Hybrid search over readable knowledge bases of the organization, logged per knowledge base. Vector and full-text candidates are fused by reciprocal rank fusion, ' +
      'reranked when a rerank model is configured, and scored 0.60 vector similarity + 0.25 text relevance + 0.15 importance. A hit needs vector similarity >= 0.35 ' +
      'unless the full-text search also found it (text-only hits included), and a combined score >= 0.25; near-duplicates are dropped, at most 2 chunks per document ' +
      'and topK (default 3) per knowledge base are kept, within a token budget. The query, each file text and each described image are searched separately and merged.',
    description:
      "Full-text relevance is Okapi BM25 (k1 1.2, b 0.75) from per-knowledge-base term statistics, normalised to 0-1 as the share of the query terms' idf it " +
      'earns. Deviation from spec 4.9 (minimum vector score 0.35): a full-text match is exempt from the vector floor and needs only the combined score. ' +
      'Measured on the retrieval evaluation (bench/retrieval-eval.bench.ts: 300 documents, 180 questions, offline embedder), production defaults reach ' +
      'recall@3 0.944 with the exemption and about 0.23 with the floor applied to text matches, so the floor is applied only to hits the full-text search ' +
      'did not find. With the offline embedder the order is text-led (0.13 vector + 0.60 text + 0.12 title match + 0.15 importance, 40 candidates ' +
      'per half; hybrid recall@3 0.967 against 0.917 for plain BM25) while the combined-score floor is still checked on the spec weights.',
    tags,
    auth: 'user',
    query: s.searchQuery,
    body: s.searchBody,
    responses: {
      '200': {
        description: 'Results, best first',
        schema: obj({
          results: { type: 'array', items: s.searchResultSchema },
          suggestedFollowUps: { type: 'array', items: { type: 'string' } },
        }),
      },
      ...errors(400, 401, 402, 403, 404),
    },
  }),
  op({
    operationId: 'knowledgeMap',
    method: 'get',
    path: '/api/knowledge/kb/:id/map',
    summary: 'Document map: completed documents with extractive summary and topics',
    tags,
    auth: 'user',
    params: kbParams,
    responses: { '200': { description: 'Map', schema: s.mapSchema }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'listSearchLog',
    method: 'get',
    path: '/api/knowledge/kb/:id/search/log',
    summary: 'Searches that covered this knowledge base, newest first',
    tags,
    auth: 'user',
    params: kbParams,
    query: pageQuery(50),
    responses: {
      '200': {
        description: 'Page',
        schema: obj({
          entries: { type: 'array', items: s.searchLogEntrySchema },
          total: { type: 'integer' },
          limit: { type: 'integer' },
          offset: { type: 'integer' },
        }),
      },
      ...errors(400, 401, 404),
    },
  }),
  op({
    operationId: 'clearSearchLog',
    method: 'delete',
    path: '/api/knowledge/kb/:id/search/log',
    summary: "Clear this knowledge base's search log (edit permission)",
    tags,
    auth: 'user',
    params: kbParams,
    responses: {
      '200': { description: 'Cleared', schema: obj({ message: { type: 'string' }, deleted: { type: 'integer' } }) },
      ...errors(400, 401, 403, 404),
    },
  }),
];
