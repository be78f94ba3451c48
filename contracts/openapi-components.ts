import { errorSchema, type JsonSchema } from './operation';
import * as agents from './schemas/agents';
import * as chat from './schemas/chat';
import * as identity from './schemas/identity';
import * as knowledge from './schemas/knowledge';
import * as prompts from './schemas/prompts';

const isSchema = (v: unknown): v is JsonSchema =>
  !!v && typeof v === 'object' && !Array.isArray(v) && ('type' in v || 'properties' in v || 'oneOf' in v || 'anyOf' in v);

/** `agentSchema` → `Agent`, `createApiKeyBody` → `CreateApiKeyBody`. */
const componentName = (exportName: string) => {
  const base = exportName.replace(/Schema$/, '');
  return base.charAt(0).toUpperCase() + base.slice(1);
};

/**
 * The named schemas of the contracts, found by object identity: wherever an operation uses one of these very
 * objects, the document says `$ref` instead of repeating it (the error body alone was inlined 343 times).
 */
export function namedSchemas(): Map<object, string> {
  const byObject = new Map<object, string>([[errorSchema, 'Error']]);
  for (const module of [agents, chat, identity, knowledge, prompts]) {
    for (const [name, value] of Object.entries(module))
      if (isSchema(value) && !byObject.has(value)) byObject.set(value, componentName(name));
  }
  return byObject;
}

/** A copy of `schema` with every named sub-schema (and the schema itself unless `keepTop`) as a `$ref`. */
export function withRefs(schema: unknown, names: Map<object, string>, keepTop = false): unknown {
  if (!schema || typeof schema !== 'object') return schema;
  const name = names.get(schema);
  if (name && !keepTop) return { $ref: `#/components/schemas/${name}` };
  if (Array.isArray(schema)) return schema.map((item) => withRefs(item, names));
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, withRefs(v, names)]));
}

export function componentSchemas(names: Map<object, string>): Record<string, unknown> {
  return Object.fromEntries([...names].map(([schema, name]) => [name, withRefs(schema, names, true)]));
}
