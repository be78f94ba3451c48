import { elasticsearchVectorIndex } from '../../adapters/elasticsearch/elasticsearch.adapters';
import { definePort } from '../../adapters/kit/port-registry';
import { pgvectorVectorIndex } from '../../adapters/pgvector/pgvector.adapters';
import { VECTOR_INDEX, type VectorIndex } from '../../core/ports/vector-index';
import { singleAdapterPort } from './platform-port';

export const vectorIndexPort = singleAdapterPort(
  definePort<VectorIndex>({
    key: 'VECTOR_INDEX',
    description: 'Vector and full-text index of the knowledge bases',
    token: VECTOR_INDEX,
    adapters: [pgvectorVectorIndex, elasticsearchVectorIndex],
  }),
  VECTOR_INDEX,
);
