import { sample } from 'openapi-sampler';

type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>> };
};
type Media = { schema?: unknown; example?: unknown };
type Operation = {
  parameters?: { schema?: unknown; example?: unknown }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
};

/** A sample value of `schema` ($refs resolved against the document); undefined when none can be made. */
function exampleOf(schema: unknown, doc: Doc): unknown {
  if (!schema || typeof schema !== 'object') return undefined;
  try {
    return sample(schema as never, { skipReadOnly: true, quiet: true, maxSampleDepth: 6 }, doc);
  } catch {
    return undefined;
  }
}

function addToMedia(content: Record<string, Media> | undefined, doc: Doc): void {
  for (const [type, media] of Object.entries(content ?? {})) {
    if (media.example !== undefined || !type.includes('json')) continue;
    const example = exampleOf(media.schema, doc);
    if (example !== undefined) media.example = example;
  }
}

/**
 * Every parameter, JSON request body, JSON response and component schema gets an example generated from its schema
 * (openapi-sampler: enums, formats, defaults and consts give realistic values), unless the contract wrote
 * one. Generated, so they always validate against the schema they illustrate.
 */
export function withExamples<T extends { paths: object; components: { schemas: object } }>(document: T): T {
  const doc = document as unknown as Doc;
  for (const methods of Object.values(doc.paths)) {
    for (const op of Object.values(methods)) {
      for (const parameter of op.parameters ?? []) {
        if (parameter.example === undefined) parameter.example = exampleOf(parameter.schema, doc);
      }
      addToMedia(op.requestBody?.content, doc);
      for (const response of Object.values(op.responses)) addToMedia(response.content, doc);
    }
  }
  for (const schema of Object.values(doc.components.schemas)) {
    if (schema.examples !== undefined) continue;
    const example = exampleOf(schema, doc);
    if (example !== undefined) schema.examples = [example];
  }
  return document;
}
