/**
 * Request schemas of the endpoints that take a plugin type and its options, built from the plugin
 * catalogue (core/plugin-contract/plugin-manifest.ts): the type is an enum of the registered types, and each type's
 * options schema applies when that type is chosen (`allOf` of `if`/`then`, valid JSON Schema for ajv and
 * OpenAPI 3.1). A plugin's options thus validate requests and appear in the OpenAPI document with no edit here.
 */
import type { PluginDescriptor } from '../core/plugin-contract/plugin-manifest';
import type { JsonSchema } from './operation';

/** The endpoint's own fields: JSON schema properties and which are required. */
export interface BaseFields {
  properties: Record<string, JsonSchema>;
  required?: readonly string[];
}

/**
 * The static type of a plugin body: its own fields and the type field, plus any other key (the options, whose
 * schemas are only known once the plugins are registered; the runtime schema checks them per type).
 */
export type PluginBody<B extends BaseFields, T extends string> = {
  type: 'object';
  required: B['required'];
  properties: B['properties'] & { [K in T]: { type: 'string' } };
  additionalProperties: true;
};

export interface PluginBodyOptions<B extends BaseFields = BaseFields, T extends string = string> {
  /** The field naming the type (`sourceType`, `type`). */
  typeField: T;
  /** The type when the field is absent. */
  defaultType?: string;
  /** The endpoint's own fields (`url`, `syncEnabled`...). */
  base: B;
  /** Options sit next to the base fields (`inline`) or under one field (`config` of a channel). */
  optionsAt: 'inline' | { field: string; required?: boolean };
  /** Introduces the list of types in the type field's description. */
  typeNote: string;
}

type ObjectSchema = { properties?: Record<string, JsonSchema> };
const propertiesOf = (d: PluginDescriptor) => (d.optionsSchema as ObjectSchema).properties ?? {};

const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

/** `- rss: An RSS or Atom feed...` lines, marking types whose secrets are not configured. */
export const typeList = (descriptors: readonly PluginDescriptor[]) =>
  descriptors
    .map((d) => `- ${d.type}: ${d.description}${d.available ? '' : ` (not configured here: needs ${d.secrets.join(', ')})`}`)
    .join('\n');

/** A top-level property for an option key several types share: their schema when alike, else a pointer to the per-type rules. */
function unionProperty(key: string, owners: PluginDescriptor[]): JsonSchema {
  const schemas = owners.map((d) => {
    const { default: _default, ...rest } = propertiesOf(d)[key] as JsonSchema & { default?: unknown };
    return rest;
  });
  const types = owners.map((d) => d.type).join(', ');
  if (schemas.every((s) => canonical(s) === canonical(schemas[0]))) return { ...schemas[0], 'x-types': owners.map((d) => d.type) };
  return {
    description: `Option of the ${types} types; its schema depends on the type (see the per-type rules)`,
    'x-types': owners.map((d) => d.type),
  };
}

function optionsObject(d: PluginDescriptor): JsonSchema {
  return { ...d.optionsSchema, type: 'object', additionalProperties: false };
}

export function pluginBodySchema<const B extends BaseFields, const T extends string>(
  descriptors: readonly PluginDescriptor[],
  o: PluginBodyOptions<B, T>,
): PluginBody<B, T> {
  return buildPluginBody(descriptors, o) as unknown as PluginBody<B, T>;
}

function buildPluginBody(descriptors: readonly PluginDescriptor[], o: PluginBodyOptions): JsonSchema {
  const types = descriptors.map((d) => d.type);
  const typeProperty: JsonSchema = {
    type: 'string',
    enum: types,
    ...(o.defaultType ? { default: o.defaultType } : {}),
    description: `${o.typeNote}\n${typeList(descriptors)}`,
  };
  const selects = (d: PluginDescriptor): JsonSchema => {
    const named = { required: [o.typeField], properties: { [o.typeField]: { const: d.type } } };
    return d.type === o.defaultType ? { anyOf: [named, { not: { required: [o.typeField] } }] } : named;
  };
  const baseKeys = [...Object.keys(o.base.properties), o.typeField];
  if (o.optionsAt !== 'inline') {
    const { field, required } = o.optionsAt;
    return {
      type: 'object',
      required: [...(o.base.required ?? []), ...(required ? [field] : []), ...(o.defaultType ? [] : [o.typeField])],
      additionalProperties: false,
      properties: {
        ...o.base.properties,
        [o.typeField]: typeProperty,
        [field]: { type: 'object', description: 'Options of the chosen type' },
      },
      allOf: descriptors.map((d) => ({ if: selects(d), then: { properties: { [field]: optionsObject(d) } } })),
    };
  }
  const owners = new Map<string, PluginDescriptor[]>();
  for (const d of descriptors) for (const key of Object.keys(propertiesOf(d))) owners.set(key, [...(owners.get(key) ?? []), d]);
  const optionProperties = Object.fromEntries([...owners].map(([key, list]) => [key, unionProperty(key, list)]));
  return {
    type: 'object',
    required: [...(o.base.required ?? []), ...(o.defaultType ? [] : [o.typeField])],
    additionalProperties: false,
    properties: { ...o.base.properties, [o.typeField]: typeProperty, ...optionProperties },
    allOf: descriptors.map((d) => ({
      if: selects(d),
      then: {
        properties: { ...Object.fromEntries(baseKeys.map((k) => [k, true])), ...propertiesOf(d) },
        additionalProperties: false,
      },
    })),
  };
}
