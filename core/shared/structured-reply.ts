/** A compiled JSON-schema check (the plugin contract's OptionsValidator compiles one). */
export type CompiledSchema = (
  value: Record<string, unknown>,
) => { valid: true; value: Record<string, unknown> } | { valid: false; errors: string[] };

/**
 * A model's structured-output reply as the validated JSON object, or null when it is not JSON of the schema
 * (models sometimes wrap the JSON in a Markdown code fence, so one is stripped).
 */
export function parseStructuredReply(text: string, validate: CompiledSchema): Record<string, unknown> | null {
  const body = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return null;
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) return null;
  const checked = validate(json as Record<string, unknown>);
  return checked.valid ? (checked.value as Record<string, unknown>) : null;
}
