/**
 * What a model is asked for when it extracts a chunk's graph: the JSON schema sent as the structured-output
 * format and used to validate the reply, and the prompt around it.
 */
import type { ChatMessage } from '../ports/chat-model';
import type { PinnedEntity } from '../ports/graph-store';

export interface ModelExtraction {
  entities: { name: string; type: string; aliases?: string[]; confidence?: number }[];
  relationships: { source: string; target: string; type: string; weight?: number; evidence?: string }[];
}

const label = { type: 'string', minLength: 1, maxLength: 200 } as const;

export const EXTRACTION_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['entities', 'relationships'],
  properties: {
    entities: {
      type: 'array',
      maxItems: 100,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'type'],
        properties: {
          name: label,
          type: { type: 'string', minLength: 1, maxLength: 60 },
          aliases: { type: 'array', maxItems: 20, items: label },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
        },
      },
    },
    relationships: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['source', 'target', 'type'],
        properties: {
          source: label,
          target: label,
          type: { type: 'string', minLength: 1, maxLength: 60 },
          weight: { type: 'number', minimum: 0, maximum: 1 },
          evidence: { type: 'string', maxLength: 1000 },
        },
      },
    },
  },
} as const satisfies Record<string, unknown>;

const INSTRUCTIONS = `You extract a knowledge graph from one passage of a document.
Return only JSON matching this JSON schema:
${JSON.stringify(EXTRACTION_SCHEMA)}
- entities: the people, organizations, places, products, concepts and events the passage names. type is one lower-case word
  (person, organization, place, product, concept, event, ...). aliases are other names the passage uses for the same entity.
  confidence (0-1) is how sure you are it is a real named entity.
- relationships: facts the passage states between two of those entities. source and target are entity names exactly as
  given in entities; type is a short snake_case verb phrase (worked_with, part_of, born_in, created, located_in, ...);
  weight (0-1) is how directly the passage states it; evidence is the sentence that states it.
- Use only what the passage says. An empty list is a valid answer.`;

/** The system and user messages for one chunk; pinned entities are named so the model uses their names. */
export function extractionPrompt(documentTitle: string, chunk: string, pinned: readonly PinnedEntity[]): ChatMessage[] {
  const known = pinned.length
    ? `\nKnown entities (use these names and types when the passage mentions them):\n${pinned
        .map((p) => `- ${p.name} (${p.type})${p.aliases.length ? `, also: ${p.aliases.join(', ')}` : ''}`)
        .join('\n')}`
    : '';
  return [
    { role: 'system', content: `${INSTRUCTIONS}${known}` },
    { role: 'user', content: `Document: ${documentTitle}\n\nPassage:\n${chunk}` },
  ];
}
