import { randomUUID } from 'node:crypto';

/** A minimal value that satisfies `schema` (required properties only), for requests the generators build. */
export function sampleFor(schema: any, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 8) return null;
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  if (schema.oneOf || schema.anyOf) return sampleFor((schema.oneOf ?? schema.anyOf)[0], depth + 1);
  switch (type) {
    case 'string':
      return sampleString(schema);
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number'
        ? schema.minimum
        : typeof schema.exclusiveMinimum === 'number'
          ? schema.exclusiveMinimum + 1
          : 1;
    case 'boolean':
      return false;
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => sampleFor(schema.items, depth + 1));
    case 'object':
    default: {
      if (!schema.properties && type !== 'object') return null;
      const out: Record<string, unknown> = {};
      for (const name of schema.required ?? []) out[name] = sampleFor(schema.properties?.[name], depth + 1);
      return out;
    }
  }
}

function sampleString(schema: any): string {
  switch (schema.format) {
    case 'uuid':
      return randomUUID();
    case 'email':
      return `probe-${randomUUID().slice(0, 8)}@example.com`;
    case 'uri':
    case 'url':
      return 'https://127.0.0.1:1/'; // refused by the SSRF guard at once: generated requests never leave the machine
    case 'date-time':
      return new Date().toISOString();
    case 'date':
      return new Date().toISOString().slice(0, 10);
  }
  const min = schema.minLength ?? 1;
  return 'probe-value'.padEnd(min, 'x').slice(0, schema.maxLength ?? 1000);
}

export interface OpenApiOperation {
  operationId: string;
  method: string;
  path: string;
  security: unknown[];
  lane: 'open' | 'user' | 'public' | 'apiKey';
  parameters: { name: string; in: string; required: boolean; schema: any }[];
  body: any | 'multipart' | null;
}

/** Every operation of the OpenAPI document, flattened, with its auth lane read back from `security`. */
export function operationsOf(doc: any): OpenApiOperation[] {
  const out: OpenApiOperation[] = [];
  for (const [path, methods] of Object.entries<any>(doc.paths)) {
    for (const [method, o] of Object.entries<any>(methods)) {
      const sec = JSON.stringify(o.security);
      const lane = sec === '[]' ? 'open' : sec.includes('apiKey') ? 'apiKey' : sec.includes('{}') ? 'public' : 'user';
      const content = o.requestBody?.content ?? {};
      const body = content['multipart/form-data'] ? 'multipart' : (content['application/json']?.schema ?? null);
      out.push({
        operationId: o.operationId,
        method: method.toUpperCase(),
        path,
        security: o.security,
        lane,
        parameters: o.parameters ?? [],
        body,
      });
    }
  }
  return out;
}
