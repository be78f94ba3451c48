/**
 * A real @elastic/elasticsearch Client whose Connection class records every request and answers from a
 * script: the client's own serialisation (JSON, NDJSON, query strings, headers) runs unchanged and nothing
 * touches the network.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { BaseConnection, Client, type ConnectionRequestParams } from '@elastic/elasticsearch';

export interface RecordedRequest {
  method: string;
  path: string;
  /** The raw query string, exactly as sent ('' when none). */
  querystring: string;
  /** Parsed JSON body; for NDJSON bodies (bulk, msearch) the array of parsed lines; null without body. */
  body: unknown;
}

export interface ScriptedResponse {
  status: number;
  body: unknown;
}

export interface Exchange {
  request: RecordedRequest;
  response: ScriptedResponse;
}

export interface FakeElasticsearch {
  client: Client;
  requests: RecordedRequest[];
  /** Content-Type header of each request, in order. */
  contentTypes: (string | undefined)[];
  /** Responses not consumed yet. */
  pending(): number;
}

function parseBody(body: ConnectionRequestParams['body'], contentType: string | undefined): unknown {
  if (body === undefined || body === null || body === '') return null;
  const text = typeof body === 'string' ? body : Buffer.isBuffer(body) ? body.toString('utf8') : null;
  if (text === null) throw new Error('the fake connection only reads string or Buffer bodies');
  if (contentType?.includes('x-ndjson')) {
    if (!text.endsWith('\n')) throw new Error('an NDJSON body must end with a newline');
    return text.slice(0, -1).split('\n').map((line) => JSON.parse(line));
  }
  return JSON.parse(text);
}

/** `responses` are answered in order (an extra request fails the call), or computed per request. */
export function fakeElasticsearch(responses: ScriptedResponse[] | ((req: RecordedRequest) => ScriptedResponse)): FakeElasticsearch {
  const requests: RecordedRequest[] = [];
  const contentTypes: (string | undefined)[] = [];
  const queue = Array.isArray(responses) ? [...responses] : null;

  class RecordingConnection extends BaseConnection {
    override async request(params: ConnectionRequestParams, _options: unknown): Promise<any> {
      const contentType = params.headers?.['content-type'] as string | undefined;
      const recorded: RecordedRequest = {
        method: params.method,
        path: params.path,
        querystring: params.querystring ?? '',
        body: parseBody(params.body, contentType),
      };
      requests.push(recorded);
      contentTypes.push(contentType);
      const res = queue ? queue.shift() : (responses as (req: RecordedRequest) => ScriptedResponse)(recorded);
      if (!res) throw new Error(`unexpected request ${recorded.method} ${recorded.path}`);
      return {
        statusCode: res.status,
        headers: { 'content-type': 'application/vnd.elasticsearch+json;compatible-with=9', 'x-elastic-product': 'Elasticsearch' },
        body: JSON.stringify(res.body),
      };
    }

    override async close(): Promise<void> {}
  }

  const client = new Client({ node: 'http://es.test:9200', Connection: RecordingConnection, maxRetries: 0 });
  return { client, requests, contentTypes, pending: () => queue?.length ?? 0 };
}

const CONTRACTS = join(__dirname, '..', '..', '..', 'test', 'contracts', 'elasticsearch');

/** A recorded request/response sequence from test/contracts/elasticsearch/<name>.json. */
export function loadContract(name: string): { description: string; exchanges: Exchange[] } {
  return JSON.parse(readFileSync(join(CONTRACTS, `${name}.json`), 'utf8'));
}

/** A fake answering a contract's responses in order. */
export function replay(name: string): FakeElasticsearch & { expected: RecordedRequest[] } {
  const contract = loadContract(name);
  const fake = fakeElasticsearch(contract.exchanges.map((e) => e.response));
  return { ...fake, expected: contract.exchanges.map((e) => e.request) };
}
