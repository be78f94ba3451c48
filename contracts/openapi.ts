import { componentSchemas, namedSchemas, withRefs } from './openapi-components';
import { withExamples } from './openapi-examples';
import type { Operation } from './operation';

/** `:name` is a parameter; `\\:` is a literal colon (`/v1/agents\\:from-url`, escaped for the router). */
const toOpenApiPath = (path: string) => path.replace(/(?<!\\):([A-Za-z0-9_]+)/g, '{$1}').replace(/\\:/g, ':');

/** Operations that apply the Idempotency-Key with rules of their own (spec 4.13). */
const OWN_IDEMPOTENCY_RULES: Record<string, string> = {
  '/v1/agents\\:from-url':
    'Optional UUID. The same key with the same body answers the same build (concurrent calls included); with another body: 409 Conflict (details.code idempotency_key_reused).',
};
const GENERAL_IDEMPOTENCY_RULES =
  'Optional UUID. The same key with the same request within 24 hours replays the first answer (status and body) with the header `Idempotent-Replayed: true`; with another body: 409 idempotency_key_reused; while the first is still running: 409 idempotency_key_in_use (Retry-After). Keys are per organization (per anonymousId on the public lane); 5xx and 429 answers are not kept.';

/** docs/contracts.md "Delivery guarantees": every POST of /api and /v1 takes an optional Idempotency-Key (adapters/http/idempotency.ts). */
const idempotencyKey = (o: Operation) =>
  o.method === 'post' && /^\/(?:api|v1)\//.test(o.path)
    ? [
        {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: OWN_IDEMPOTENCY_RULES[o.path] ?? GENERAL_IDEMPOTENCY_RULES,
          schema: { type: 'string', format: 'uuid' },
        },
      ]
    : [];

function parameters(o: Operation) {
  const out: Record<string, unknown>[] = [];
  for (const name of [...o.path.matchAll(/(?<!\\):([A-Za-z0-9_]+)/g)].map((m) => m[1])) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  const q = o.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(q?.properties ?? {})) {
    out.push({ name, in: 'query', required: q?.required?.includes(name) ?? false, schema });
  }
  out.push(...idempotencyKey(o));
  return out;
}

const security: Record<Operation['auth'], unknown[]> = {
  open: [],
  user: [{ bearerAuth: [] }, { cookieAuth: [] }],
  public: [{}, { bearerAuth: [] }],
  apiKey: [{ apiKey: [] }],
};

export function buildOpenApiDocument(operations: Operation[], version: string) {
  const names = namedSchemas();
  const paths: Record<string, Record<string, unknown>> = {};
  for (const o of operations) {
    const path = toOpenApiPath(o.path);
    paths[path] ??= {};
    const body =
      o.body === 'multipart'
        ? {
            required: true,
            content: { 'multipart/form-data': { schema: { type: 'object', properties: { file: { type: 'string', format: 'binary' } } } } },
          }
        : o.body
          ? { required: true, content: { 'application/json': { schema: withRefs(o.body, names) } } }
          : undefined;
    paths[path][o.method] = {
      operationId: o.operationId,
      summary: o.summary,
      description: o.description ?? o.summary,
      tags: o.tags,
      security: security[o.auth],
      ...(o.scope ? { 'x-required-scope': o.scope } : {}),
      parameters: parameters(o),
      ...(body ? { requestBody: body } : {}),
      responses: Object.fromEntries(
        Object.entries(o.responses).map(([status, r]) => [
          status,
          {
            description: r.description,
            ...(r.schema || r.contentType
              ? {
                  content: {
                    [r.contentType ?? 'application/json']: {
                      schema: withRefs(r.schema ?? {}, names),
                      ...(r.example !== undefined ? { example: r.example } : {}),
                    },
                  },
                }
              : {}),
          },
        ]),
      ),
    };
  }
  return withExamples({
    openapi: '3.1.0',
    info: {
      title: 'Agent Platform API',
      version,
      description: 'Multi-tenant retrieval-augmented chat agents. All traffic passes through the gateway.',
    },
    servers: [{ url: '/' }],
    components: {
      schemas: componentSchemas(names),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: 'access_token' },
        apiKey: { type: 'http', scheme: 'bearer', description: 'Organization-scoped live API key' },
      },
    },
    paths,
  });
}
