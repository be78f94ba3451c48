/**
 * Contract tests of the Elasticsearch vector index, writes, deletes and counts (search is in
 * elasticsearch.search.test.ts). Elasticsearch cannot run here: a real client with a recording Connection
 * pins the exact requests (method, path, query string, JSON/NDJSON body) and replays recorded responses.
 */
import Ajv from 'ajv';

import { chunkId } from '../../core/knowledge/chunk-id';
import type { VectorChunk } from '../../core/ports/vector-index';
import { DomainError } from '../../core/shared/errors';
import { ElasticsearchVectorIndex, elasticsearchVectorIndexOptionsSchema, MAX_BULK_CHUNKS } from './elasticsearch.vector-index';
import { fakeElasticsearch, loadContract, replay, type ScriptedResponse } from './test-fixtures/fake-elasticsearch';

const NODE = 'http://es.test:9200';

const chunk = (i: number, over: Partial<VectorChunk> = {}): VectorChunk => ({
  id: chunkId('doc-1', i),
  organizationId: 'org-a',
  knowledgeBaseId: 'kb-1',
  documentId: 'doc-1',
  chunkIndex: i,
  content: ['Refund requests are accepted within 30 days of purchase.', 'Shipping is free for orders over 50 euros.'][i] ?? `chunk ${i}`,
  embedding: [
    [0.5, 0.5, 0.5, 0.5],
    [0.6, 0.8, 0, 0],
  ][i] ?? [1, 0, 0, 0],
  embeddingType: 'text',
  importance: [0.5, 0.7][i] ?? 0.5,
  metadata:
    [
      { title: 'Refund policy', start: 0 },
      { title: 'Refund policy', start: 49 },
    ][i] ?? {},
  ...over,
});
const DOC = { organizationId: 'org-a', knowledgeBaseId: 'kb-1', documentId: 'doc-1' };

const created: ScriptedResponse = { status: 200, body: { acknowledged: true, shards_acknowledged: true, index: 'acme-chunks-d4' } };
const bulkOk = (ids: string[]): ScriptedResponse => ({
  status: 200,
  body: {
    errors: false,
    took: 5,
    items: ids.map((_id) => ({ index: { _index: 'acme-chunks-d4', _id, _version: 1, result: 'created', status: 201 } })),
  },
});
const esError = (status: number, type: string, reason: string): ScriptedResponse => ({
  status,
  body: { error: { root_cause: [{ type, reason }], type, reason }, status },
});

async function rejection(p: Promise<unknown>): Promise<DomainError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(DomainError);
  return e as DomainError;
}

describe('ElasticsearchVectorIndex options', () => {
  it('validates the options schema with ajv and reports every problem together', () => {
    const validate = new Ajv({ allErrors: true }).compile(elasticsearchVectorIndexOptionsSchema);
    expect(validate({ node: NODE, indexPrefix: 'agent-platform' })).toBe(true);
    expect(validate({ node: 'es:9200', indexPrefix: 'Bad*Prefix' })).toBe(false);
    expect(validate.errors).toHaveLength(2);
    let error: unknown;
    try {
      new ElasticsearchVectorIndex({ node: 'es:9200', indexPrefix: '_hidden' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('VALIDATION');
    expect((error as DomainError).message).toMatch(/node.*indexPrefix|indexPrefix.*node/s);
  });

  it('describes itself and does not close an injected client', async () => {
    const fake = fakeElasticsearch([]);
    const close = jest.spyOn(fake.client, 'close');
    const index = new ElasticsearchVectorIndex({ node: NODE, client: fake.client });
    expect(index.id).toBe('elasticsearch');
    await index.close();
    expect(close).not.toHaveBeenCalled();
  });

  it('sends the Elasticsearch 9 compatibility content types (JSON and NDJSON)', async () => {
    const fake = fakeElasticsearch([created, bulkOk([chunk(0).id])]);
    await new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client }).upsert([chunk(0)]);
    expect(fake.contentTypes).toEqual([
      'application/vnd.elasticsearch+json; compatible-with=9',
      'application/vnd.elasticsearch+x-ndjson; compatible-with=9',
    ]);
  });
});

describe('ElasticsearchVectorIndex writes', () => {
  it('creates the index of the dimensions with the explicit mapping, then bulk-writes with refresh=wait_for', async () => {
    const fake = replay('create-index-and-upsert');
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    await index.upsert([chunk(0), chunk(1)]);
    expect(fake.requests).toEqual(fake.expected);
    expect(fake.pending()).toBe(0);
  });

  it('creates an index once per process and per dimensions', async () => {
    const fake = fakeElasticsearch((req) =>
      req.method === 'PUT' ? created : bulkOk((req.body as { index?: { _id: string } }[]).flatMap((l) => (l.index ? [l.index._id] : []))),
    );
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    await Promise.all([index.upsert([chunk(0)]), index.upsert([chunk(1)])]);
    await index.upsert([chunk(2, { embedding: [1, 0, 0, 0, 0, 0, 0, 0] })]);
    expect(fake.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'PUT /acme-chunks-d4',
      'POST /_bulk',
      'POST /_bulk',
      'PUT /acme-chunks-d8',
      'POST /_bulk',
    ]);
    expect((fake.requests[4].body as unknown[])[0]).toEqual({ index: { _index: 'acme-chunks-d8', _id: chunkId('doc-1', 2) } });
  });

  it('retries the index creation on the next write when it failed, with the Elasticsearch reason', async () => {
    const fake = fakeElasticsearch([
      esError(400, 'illegal_argument_exception', 'The number of dimensions should be in the range [1, 4096] but was [5000]'),
      created,
      bulkOk([chunk(0).id]),
    ]);
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    const e = await rejection(index.upsert([chunk(0)]));
    expect(e.code).toBe('UPSTREAM_FAILED');
    expect(e.message).toContain('illegal_argument_exception: The number of dimensions should be in the range');
    await index.upsert([chunk(0)]);
    expect(fake.requests.map((r) => r.method)).toEqual(['PUT', 'PUT', 'POST']);
  });

  it('splits a large write into several bulk requests, each waiting for the refresh', async () => {
    const many = Array.from({ length: MAX_BULK_CHUNKS + 1 }, (_, i) => chunk(i + 2));
    const fake = fakeElasticsearch((req) =>
      req.method === 'PUT' ? created : bulkOk((req.body as { index?: { _id: string } }[]).flatMap((l) => (l.index ? [l.index._id] : []))),
    );
    await new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client }).upsert(many);
    const bulks = fake.requests.filter((r) => r.path === '/_bulk');
    expect(bulks.map((b) => (b.body as unknown[]).length / 2)).toEqual([MAX_BULK_CHUNKS, 1]);
    expect(bulks.every((b) => b.querystring === 'refresh=wait_for')).toBe(true);
  });

  it('replaceDocument: bulk upsert, then delete_by_query of the chunks not in the new set (organization AND document)', async () => {
    const fake = replay('replace-document');
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    await expect(index.replaceDocument(DOC, [chunk(0), chunk(1)])).resolves.toEqual({ deleted: 1, written: 2 });
    expect(fake.requests).toEqual(fake.expected);
    expect(fake.pending()).toBe(0);
  });

  it('replaceDocument converges when repeated: the same requests, nothing more to delete', async () => {
    const contract = loadContract('replace-document');
    const [, bulk, dbq] = contract.exchanges;
    const none = { ...dbq.response, body: { ...(dbq.response.body as object), total: 0, deleted: 0 } };
    const fake = fakeElasticsearch([contract.exchanges[0].response, bulk.response, dbq.response, bulk.response, none]);
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    await expect(index.replaceDocument(DOC, [chunk(0), chunk(1)])).resolves.toEqual({ deleted: 1, written: 2 });
    await expect(index.replaceDocument(DOC, [chunk(0), chunk(1)])).resolves.toEqual({ deleted: 0, written: 2 });
    expect(fake.requests.slice(3)).toEqual([bulk.request, dbq.request]); // index creation is not repeated
  });

  it('replaceDocument with no chunks deletes every chunk of the document and writes nothing', async () => {
    const expected = loadContract('delete-by-document').exchanges[0];
    const fake = fakeElasticsearch([expected.response]);
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    await expect(index.replaceDocument(DOC, [])).resolves.toEqual({ deleted: 3, written: 0 });
    expect(fake.requests).toEqual([expected.request]);
  });

  it('bulk partial failure: UPSTREAM_FAILED naming the failed chunk, and no stale-chunk delete afterwards', async () => {
    const fake = replay('bulk-partial-failure');
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    const e = await rejection(index.replaceDocument(DOC, [chunk(0), chunk(1)]));
    expect(e.code).toBe('UPSTREAM_FAILED');
    expect(e.message).toContain('1 of 2 chunks failed');
    expect(e.message).toContain(chunk(1).id);
    expect(e.message).toContain('es_rejected_execution_exception: rejected execution of coordinating operation');
    expect(e.details).toMatchObject({
      operation: 'bulk',
      failed: [{ id: chunk(1).id, status: 429, type: 'es_rejected_execution_exception' }],
    });
    expect(fake.requests).toEqual(fake.expected); // create + bulk only
    expect(fake.pending()).toBe(0);
  });

  it('maps a failed bulk request (no response) to UPSTREAM_FAILED', async () => {
    const fake = fakeElasticsearch([created, esError(413, 'http_content_too_long', 'request body is too large')]);
    const e = await rejection(new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client }).upsert([chunk(0)]));
    expect(e.code).toBe('UPSTREAM_FAILED');
    expect(e.message).toBe('Elasticsearch bulk failed: http_content_too_long: request body is too large');
  });

  it('refuses chunks of another document, zero and non-finite vectors before sending anything', async () => {
    const fake = fakeElasticsearch([]);
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    expect((await rejection(index.replaceDocument(DOC, [chunk(0, { organizationId: 'org-b' })]))).code).toBe('VALIDATION');
    expect((await rejection(index.replaceDocument(DOC, [chunk(0, { documentId: 'doc-2' })]))).code).toBe('VALIDATION');
    expect((await rejection(index.upsert([chunk(0, { embedding: [0, 0, 0, 0] })]))).code).toBe('VALIDATION');
    expect((await rejection(index.upsert([chunk(0, { embedding: [0.5, Number.NaN, 0.5, 0.5] })]))).code).toBe('VALIDATION');
    expect((await rejection(index.upsert([chunk(0, { embedding: [] })]))).code).toBe('VALIDATION');
    await index.upsert([]);
    expect(fake.requests).toEqual([]);
  });
});

describe('ElasticsearchVectorIndex deletes and counts', () => {
  const make = (name: string) => {
    const fake = replay(name);
    return { fake, index: new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client }) };
  };

  it('deleteByDocument returns delete_by_query `deleted`', async () => {
    const { fake, index } = make('delete-by-document');
    await expect(index.deleteByDocument('org-a', 'doc-1')).resolves.toBe(3);
    expect(fake.requests).toEqual(fake.expected);
  });

  it('deleteByKnowledgeBase returns delete_by_query `deleted`', async () => {
    const { fake, index } = make('delete-by-knowledge-base');
    await expect(index.deleteByKnowledgeBase('org-a', 'kb-1')).resolves.toBe(120);
    expect(fake.requests).toEqual(fake.expected);
  });

  it('countByDocument returns `_count`', async () => {
    const { fake, index } = make('count-by-document');
    await expect(index.countByDocument('org-a', 'doc-1')).resolves.toBe(3);
    expect(fake.requests).toEqual(fake.expected);
  });

  it('index_not_found means nothing to delete or count', async () => {
    const missing = esError(404, 'index_not_found_exception', 'no such index [acme-chunks-d*]');
    const fake = fakeElasticsearch([missing, missing, missing]);
    const index = new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client });
    await expect(index.deleteByDocument('org-a', 'doc-1')).resolves.toBe(0);
    await expect(index.deleteByKnowledgeBase('org-a', 'kb-1')).resolves.toBe(0);
    await expect(index.countByDocument('org-a', 'doc-1')).resolves.toBe(0);
  });

  it('delete_by_query failures are UPSTREAM_FAILED with the cause', async () => {
    const fake = fakeElasticsearch([
      {
        status: 200,
        body: {
          took: 40,
          timed_out: false,
          total: 5,
          deleted: 4,
          batches: 1,
          version_conflicts: 0,
          noops: 0,
          retries: { bulk: 0, search: 0 },
          failures: [
            {
              index: 'acme-chunks-d4',
              id: chunkId('doc-1', 3),
              cause: {
                type: 'cluster_block_exception',
                reason:
                  'index [acme-chunks-d4] blocked by: [TOO_MANY_REQUESTS/12/disk usage exceeded flood-stage watermark, index has read-only-allow-delete block];',
              },
              status: 429,
            },
          ],
        },
      },
    ]);
    const e = await rejection(
      new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client }).deleteByDocument('org-a', 'doc-1'),
    );
    expect(e.code).toBe('UPSTREAM_FAILED');
    expect(e.message).toContain('cluster_block_exception: index [acme-chunks-d4] blocked by');
  });

  it('an unreachable node is UPSTREAM_FAILED', async () => {
    const fake = fakeElasticsearch(() => {
      throw new Error('connect ECONNREFUSED 127.0.0.1:9200');
    });
    const e = await rejection(
      new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client: fake.client }).countByDocument('org-a', 'doc-1'),
    );
    expect(e.code).toBe('UPSTREAM_FAILED');
    expect(e.message).toMatch(/^Elasticsearch count failed: .*ECONNREFUSED/);
  });
});
