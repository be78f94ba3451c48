/**
 * Entity resolution of one document's graph against the knowledge base, shared by every graph store: a key
 * already in the knowledge base resolves to its entity, new names create one, and aliases and confidence only
 * grow. Pure: stores look the keys up, then write what this plans.
 */
import type { DocumentGraph } from '../ports/graph-store';

/** An entity found by one of the document's keys. */
export interface KeyedEntity {
  key: string;
  id: string;
  name: string;
  aliases: string[];
  confidence: number;
}

export interface EntityRow {
  id: string;
  name: string;
  type: string;
  aliases: string[];
  confidence: number;
}

export interface EntityResolution {
  /** Every key of the document (and the found ones) to its entity id. */
  byKey: Map<string, string>;
  /** The entity id of each of the document's entities, in order. */
  ids: string[];
  /** New entities, with what they gained from later mentions in the same document. */
  inserts: EntityRow[];
  /** Known entities whose aliases or confidence grew (type is not changed). */
  changed: Omit<EntityRow, 'type'>[];
}

export function resolveEntities(entities: DocumentGraph['entities'], found: KeyedEntity[], newId: () => string): EntityResolution {
  const byKey = new Map<string, string>(found.map((r) => [r.key, r.id]));
  const known = new Map<string, { name: string; aliases: Set<string>; confidence: number }>();
  for (const r of found) known.set(r.id, { name: r.name, aliases: new Set([r.name, ...r.aliases]), confidence: Number(r.confidence) });
  const created: { id: string; type: string }[] = [];
  const changed = new Set<string>();
  const ids: string[] = [];
  for (const e of entities) {
    let id = e.keys.map((k) => byKey.get(k)).find(Boolean);
    if (!id) {
      id = newId();
      created.push({ id, type: e.type });
      known.set(id, { name: e.name, aliases: new Set([e.name, ...e.aliases]), confidence: e.confidence });
    } else {
      const k = known.get(id)!;
      for (const a of [e.name, ...e.aliases])
        if (!k.aliases.has(a)) {
          k.aliases.add(a);
          changed.add(id);
        }
      if (e.confidence > k.confidence) {
        k.confidence = e.confidence;
        changed.add(id);
      }
    }
    for (const key of e.keys) if (!byKey.has(key)) byKey.set(key, id);
    ids.push(id);
  }
  const final = (id: string) => {
    const k = known.get(id)!;
    return { id, name: k.name, aliases: [...k.aliases].filter((a) => a !== k.name), confidence: k.confidence };
  };
  const createdIds = new Set(created.map((c) => c.id));
  return {
    byKey,
    ids,
    inserts: created.map((c) => ({ ...final(c.id), type: c.type })),
    changed: [...changed].filter((id) => !createdIds.has(id)).map(final),
  };
}
