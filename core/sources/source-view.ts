import type { KnowledgeSource } from '../knowledge/source';

/** A source as the API shows it: the record without its owners, plus how many items it brought in. */
export type SourceView = Omit<KnowledgeSource, 'organizationId' | 'createdBy'> & {
  /** Items recorded by the last syncs (each one a document). */
  itemCount: number;
};

export const toSourceView = (
  { organizationId: _organizationId, createdBy: _createdBy, ...source }: KnowledgeSource,
  itemCount: number,
): SourceView => ({
  ...source,
  itemCount,
});

export const addMinutes = (iso: string, minutes: number) => new Date(Date.parse(iso) + minutes * 60_000).toISOString();
