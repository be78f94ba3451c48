import type { VectorIndex } from '../../core/ports/vector-index';
import { defineAdapter, setting } from '../kit/adapter-definition';

/** VECTOR_INDEX=elasticsearch: dense_vector kNN + BM25 per knowledge base. */
export const elasticsearchVectorIndex = defineAdapter<VectorIndex>({
  id: 'elasticsearch',
  description: 'Elasticsearch (dense_vector kNN + BM25)',
  settings: {
    ELASTICSEARCH_URL: { type: 'string', format: 'uri', description: 'Elasticsearch node URL (credentials may be in the URL)' },
    ELASTICSEARCH_INDEX_PREFIX: {
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9_-]*$',
      maxLength: 100,
      description: 'First part of the index names (default agent-platform)',
    },
  },
  requires: ['ELASTICSEARCH_URL'],
  async create(settings) {
    const { ElasticsearchVectorIndex } = await import('./elasticsearch.vector-index');
    const indexPrefix = setting.string(settings, 'ELASTICSEARCH_INDEX_PREFIX');
    return new ElasticsearchVectorIndex({
      node: setting.requiredString(settings, 'ELASTICSEARCH_URL'),
      ...(indexPrefix ? { indexPrefix } : {}),
    });
  },
});
