import { DomainError } from '../shared/errors';
import { allowedNamespaces, type PromptType, type VariableNamespace } from './prompt-types';

// {{ namespace.name }}: the name may itself contain dots (user.address.city).
const VARIABLE = /\{\{\s*([A-Za-z_][\w-]*)\.([A-Za-z_][\w.-]*)\s*\}\}/g;

export interface TemplateVariable {
  /** The text as written, e.g. `{{user.name}}`. */
  raw: string;
  namespace: string;
  name: string;
}

/** Every `{{namespace.name}}` in a text (bare `{{name}}` placeholders are not variables and stay as written). */
export function templateVariables(text: string | null | undefined): TemplateVariable[] {
  if (!text) return [];
  return [...text.matchAll(VARIABLE)].map((m) => ({ raw: m[0], namespace: m[1], name: m[2] }));
}

/** Throws INVALID_VARIABLE_NAMESPACE naming the first variable the section type does not allow. */
export function checkVariableNamespaces(type: PromptType, texts: (string | null | undefined)[]) {
  const allowed = allowedNamespaces(type) as readonly string[];
  for (const text of texts) {
    const bad = templateVariables(text).find((v) => !allowed.includes(v.namespace));
    if (bad) {
      throw new DomainError(
        'INVALID_VARIABLE_NAMESPACE',
        `${bad.raw} uses the namespace "${bad.namespace}", which ${type} sections do not allow (allowed: ${allowed.join(', ')})`,
        {
          variable: bad.raw,
          namespace: bad.namespace,
          promptType: type,
          allowedNamespaces: allowed,
        },
      );
    }
  }
}

export type TemplateValues = Partial<Record<VariableNamespace, Record<string, unknown>>>;

function lookup(values: Record<string, unknown> | undefined, path: string): unknown {
  if (!values) return undefined;
  if (path in values) return values[path];
  return path
    .split('.')
    .reduce<unknown>((v, key) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[key] : undefined), values);
}

/**
 * Replaces `{{namespace.name}}` with the value from `values[namespace]` (a dotted name also walks nested
 * objects). A missing value renders as an empty string; objects render as JSON. Bare `{{name}}` stays.
 */
export function renderTemplate(text: string, values: TemplateValues): string {
  return text.replace(VARIABLE, (_raw, ns: string, name: string) => {
    const v = lookup(values[ns as VariableNamespace], name);
    if (v === undefined || v === null) return '';
    return typeof v === 'object' ? JSON.stringify(v) : String(v);
  });
}
