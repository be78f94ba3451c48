/**
 * The TypeScript type of the values a JSON schema accepts, computed from the schema's literal type: the
 * request bodies and queries handlers receive are typed from the same objects that validate them. Covers the
 * schema words the contracts use (type, properties, required, additionalProperties: true, items, enum, const); a property with a
 * `default` is always present (ajv fills it in). What it cannot read (a schema typed as plain JsonSchema) is
 * `unknown`, so a handler cannot use a field the contract does not declare.
 */
type Primitive<T> = T extends 'string'
  ? string
  : T extends 'integer' | 'number'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'object'
          ? Record<string, unknown>
          : T extends 'array'
            ? unknown[]
            : unknown;

type RequiredKeys<S> = S extends { required: readonly (infer R)[] } ? R : never;
type DefaultedKeys<P> = { [K in keyof P]: P[K] extends { default: unknown } ? K : never }[keyof P];
type Flatten<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S, P> = Flatten<
  { -readonly [K in keyof P as K extends RequiredKeys<S> | DefaultedKeys<P> ? K : never]: SchemaType<P[K]> } & {
    -readonly [K in keyof P as K extends RequiredKeys<S> | DefaultedKeys<P> ? never : K]?: SchemaType<P[K]>;
  }
>;

export type SchemaType<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { properties: infer P; additionalProperties: true }
      ? ObjectOf<S, P> & Record<string, unknown>
      : S extends { properties: infer P }
        ? ObjectOf<S, P>
        : S extends { type: 'array'; items: infer I }
          ? SchemaType<I>[]
          : S extends { type: readonly ['array', 'null']; items: infer I }
            ? SchemaType<I>[] | null
            : S extends { type: readonly (infer T)[] }
              ? Primitive<T>
              : S extends { type: infer T }
                ? Primitive<T>
                : unknown;
