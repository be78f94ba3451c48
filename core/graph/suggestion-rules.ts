/**
 * The deterministic rules behind optimisation suggestions and the entity predicates of the issues listing
 * (spec 2.7 categories). Pure: entities in, suggestions out.
 */
import type { GraphEntity, GraphSuggestion, SuggestionType } from '../ports/graph-store';
import { cleanName, foldName } from './names';
import { NOT_NAMES } from './offline-lexicon';

export const LOW_CONFIDENCE = 0.55;
/** An untyped (`concept`) entity mentioned this often deserves a look. */
export const REVIEW_MENTIONS = 3;
/** ai-resolve without a model approves suggestions at or above this confidence. */
export const AUTO_APPROVE_CONFIDENCE = 0.75;

export const ISSUE_CATEGORIES: readonly SuggestionType[] = ['duplicate', 'remove', 'rename', 'orphan', 'needs_review', 'low_confidence'];

export type Draft = Pick<GraphSuggestion, 'type' | 'entityIds' | 'payload' | 'reason' | 'confidence'>;

const loose = (name: string) => foldName(name).replace(/\s+/g, '');
const byMentions = (a: GraphEntity, b: GraphEntity) =>
  b.mentionCount - a.mentionCount || a.name.localeCompare(b.name) || a.id.localeCompare(b.id);

function duplicates(entities: GraphEntity[]): Draft[] {
  const out: Draft[] = [];
  const groups = new Map<string, GraphEntity[]>();
  for (const e of entities) groups.set(loose(e.name), [...(groups.get(loose(e.name)) ?? []), e]);
  const grouped = new Set<string>();
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const [canonical, ...rest] = [...group].sort(byMentions);
    group.forEach((e) => grouped.add(e.id));
    out.push({
      type: 'duplicate',
      entityIds: [canonical.id, ...rest.map((e) => e.id)],
      payload: { canonicalEntityId: canonical.id },
      reason: `${group.map((e) => `"${e.name}"`).join(', ')} differ only in spelling`,
      confidence: 0.9,
    });
  }
  // "Lovelace" next to "Ada Lovelace" of the same type: the short one is likely the same entity.
  const multi = entities.filter((e) => e.name.includes(' '));
  const byLastWord = new Map<string, GraphEntity[]>();
  for (const e of multi) {
    const last = foldName(e.name.split(' ').pop()!);
    byLastWord.set(`${e.type}:${last}`, [...(byLastWord.get(`${e.type}:${last}`) ?? []), e]);
  }
  for (const e of entities) {
    if (e.name.includes(' ') || grouped.has(e.id)) continue;
    const owners = byLastWord.get(`${e.type}:${foldName(e.name)}`) ?? [];
    if (owners.length !== 1) continue;
    out.push({
      type: 'duplicate',
      entityIds: [owners[0].id, e.id],
      payload: { canonicalEntityId: owners[0].id },
      reason: `"${e.name}" is likely a short form of "${owners[0].name}"`,
      confidence: 0.6,
    });
  }
  return out;
}

function renames(entities: GraphEntity[]): Draft[] {
  const out: Draft[] = [];
  for (const e of entities) {
    let newName = cleanName(e.name);
    if (newName === newName.toLowerCase() || (newName === newName.toUpperCase() && newName.length > 4))
      newName = newName.toLowerCase().replace(/(^|\s)\p{L}/gu, (c) => c.toUpperCase());
    if (newName && newName !== e.name)
      out.push({
        type: 'rename',
        entityIds: [e.id],
        payload: { newName },
        reason: `"${e.name}" reads better as "${newName}"`,
        confidence: 0.7,
      });
  }
  return out;
}

function removals(entities: GraphEntity[]): Draft[] {
  return entities
    .filter((e) => foldName(e.name).length <= 2 || /^\d+$/.test(foldName(e.name).replace(/\s/g, '')) || NOT_NAMES.has(foldName(e.name)))
    .map((e) => ({ type: 'remove', entityIds: [e.id], payload: {}, reason: `"${e.name}" is not a meaningful entity`, confidence: 0.8 }));
}

/** Entity-level predicates (also listed as issues without a suggestion). */
export const isLowConfidence = (e: GraphEntity) => e.confidence < LOW_CONFIDENCE;
export const needsReview = (e: GraphEntity) => e.type === 'concept' && e.mentionCount >= REVIEW_MENTIONS;

/** Every suggestion the rules make for these entities; `orphans` are ids without any relationship. */
export function draftSuggestions(entities: GraphEntity[], orphans: ReadonlySet<string>): Draft[] {
  const visible = entities.filter((e) => !e.hidden);
  const drafts: Draft[] = [...duplicates(visible), ...renames(visible), ...removals(visible)];
  for (const e of visible) {
    if (orphans.has(e.id) && e.mentionCount <= 1)
      drafts.push({
        type: 'orphan',
        entityIds: [e.id],
        payload: {},
        reason: `"${e.name}" has no relationship and one mention`,
        confidence: 0.5,
      });
    if (isLowConfidence(e))
      drafts.push({
        type: 'low_confidence',
        entityIds: [e.id],
        payload: {},
        reason: `"${e.name}" was extracted with confidence ${e.confidence.toFixed(2)}`,
        confidence: Math.round((1 - e.confidence) * 100) / 100,
      });
    if (needsReview(e))
      drafts.push({
        type: 'needs_review',
        entityIds: [e.id],
        payload: {},
        reason: `"${e.name}" is mentioned ${e.mentionCount} times but has no specific type`,
        confidence: 0.4,
      });
  }
  return drafts;
}
