import { componentSchemas, namedSchemas, withRefs } from './openapi-components';
import { withExamples } from './openapi-examples';
import type { Operation } from './operation';

/** `:name` is a parameter; `\\:` is a literal colon (`/v1/agents\\:from-url`, escaped for the router). */
const toOpenApiPath = (path: string) => path.replace(/(?<!\\):([A-Za-z0-9_]+)/g, '{$1}').replace(/\\:/g, ':');

function parameters(o: Operation) {
  const out: Record<string, unknown>[] = [];
  for (const name of [...o.path.matchAll(/(?<!\\):([A-Za-z0-9_]+)/g)].map((m) => m[1])) {
    out.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  const q = o.query as { properties?: Record<string, unknown>; required?: string[] } | undefined;
  for (const [name, schema] of Object.entries(q?.properties ?? {})) {
    out.push({ name, in: 'query', required: q?.required?.includes(name) ?? false, schema });
  }
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
