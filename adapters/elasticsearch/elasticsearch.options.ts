import type { Client } from '@elastic/elasticsearch';
import Ajv from 'ajv';

import { DomainError } from '../../core/shared/errors';

export interface ElasticsearchVectorIndexOptions {
  /** Node URL, e.g. http://elasticsearch:9200 (credentials may be given in the URL: http://user:pass@host:9200). */
  node: string;
  /** First part of every index name: `<indexPrefix>-chunks-d<dims>` (default `agent-platform`). */
  indexPrefix?: string;
  /** Pre-built client (tests inject one whose `Connection` records requests). When given, `node` is not used. */
  client?: Client;
}

export const DEFAULT_INDEX_PREFIX = 'agent-platform';

/** JSON schema (ajv, draft-07) of the configurable options; `client` is code-only and not part of it. */
export const elasticsearchVectorIndexOptionsSchema = {
  $id: 'elasticsearch-vector-index-options',
  type: 'object',
  additionalProperties: false,
  required: ['node'],
  properties: {
    node: { type: 'string', pattern: '^https?://[^\\s]+$', description: 'Elasticsearch node URL' },
    indexPrefix: {
      // Elasticsearch index names: lowercase, no leading - _ +, none of \ / * ? " < > | , # : or spaces.
      type: 'string',
      pattern: '^[a-z0-9][a-z0-9_-]*$',
      maxLength: 100,
      description: 'First part of the index names (<prefix>-chunks-d<dims>)',
    },
  },
} as const;

let compiled: ReturnType<Ajv['compile']> | undefined;

/** Throws one VALIDATION error listing every problem of the configurable options. */
export function validateElasticsearchVectorIndexOptions(options: unknown): { node: string; indexPrefix?: string } {
  compiled ??= new Ajv({ allErrors: true }).compile(elasticsearchVectorIndexOptionsSchema);
  if (!compiled(options)) {
    const problems = (compiled.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
    throw new DomainError('VALIDATION', `Invalid Elasticsearch vector index options: ${problems.join('; ')}`, problems);
  }
  return options as { node: string; indexPrefix?: string };
}
