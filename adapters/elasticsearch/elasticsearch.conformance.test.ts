/**
 * The shared VectorIndex conformance suite against a live Elasticsearch 9. Elasticsearch cannot run on the
 * development and CI machines, so this file is skipped unless TEST_ELASTICSEARCH_URL is set, e.g. against
 * the docker-compose stack: `TEST_ELASTICSEARCH_URL=http://127.0.0.1:9200 npm run jest -- adapters/elasticsearch`.
 * What always runs here is the contract tests beside it.
 */
import { Client } from '@elastic/elasticsearch';

import { vectorIndexConformance } from '../../test/conformance/vector-index.conformance';
import { ElasticsearchVectorIndex } from './elasticsearch.vector-index';

const url = process.env.TEST_ELASTICSEARCH_URL;
const prefix = `conformance-${process.pid}-${Date.now()}`;

if (url) {
  vectorIndexConformance('elasticsearch (live)', {
    create: () => new ElasticsearchVectorIndex({ node: url, indexPrefix: prefix }),
    destroy: async () => {
      // Wildcard deletes are refused by default (action.destructive_requires_name): name the suite's indices.
      const client = new Client({ node: url });
      await client.indices.delete({ index: [8, 16, 3072].map((d) => `${prefix}-chunks-d${d}`), ignore_unavailable: true });
      await client.close();
    },
  });
} else {
  describe.skip('VectorIndex conformance: elasticsearch (set TEST_ELASTICSEARCH_URL to run against a live node)', () => {
    it('needs a live Elasticsearch', () => undefined);
  });
}
