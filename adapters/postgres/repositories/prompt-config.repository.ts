import type {
  DraftSection,
  LivePointer,
  PromptConfigRepository,
  PromptConfigVersion,
  PromptSection,
} from '../../../core/prompts/prompt-config';
import type { PromptType } from '../../../core/prompts/prompt-types';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// instance_ref is '' in the tables for sections that are not instanced (it is part of the primary keys).
const toRef = (v: unknown) => (v as string) || null;
const fromRef = (v: string | null) => v ?? '';

const toSection = (r: Record<string, unknown>): PromptSection => ({
  promptType: r.prompt_type as PromptType,
  instanceRef: toRef(r.instance_ref),
  mode: r.mode as PromptSection['mode'],
  content: (r.content as string | null) ?? null,
  prompt: (r.prompt as string | null) ?? null,
});

const toVersion = (r: Record<string, unknown>): PromptConfigVersion => ({
  id: r.id as string,
  agentId: r.agent_id as string,
  organizationId: r.organization_id as string,
  versionMajor: Number(r.version_major),
  versionMinor: Number(r.version_minor),
  label: (r.label as string | null) ?? null,
  createdAt: iso(r.created_at),
  createdBy: (r.created_by as string | null) ?? null,
  authorName: (r.author_name as string | null) ?? null,
  sectionCount: Number(r.section_count ?? 0),
});

const bySection = (a: PromptSection, b: PromptSection) =>
  a.promptType.localeCompare(b.promptType) || (a.instanceRef ?? '').localeCompare(b.instanceRef ?? '');

export class KnexPromptConfigRepository implements PromptConfigRepository {
  constructor(private readonly db: DbHandle) {}

  async draft(agentId: string): Promise<DraftSection[]> {
    const rows = await this.db()('prompt_draft_sections').where({ agent_id: agentId });
    return rows.map((r) => ({ ...toSection(r), updatedAt: iso(r.updated_at), updatedBy: r.updated_by ?? null })).sort(bySection);
  }

  async upsertDraft(organizationId: string, agentId: string, sections: PromptSection[], at: string, by: string | null) {
    if (!sections.length) return;
    await this.db()('prompt_draft_sections')
      .insert(
        sections.map((s) => ({
          agent_id: agentId,
          organization_id: organizationId,
          prompt_type: s.promptType,
          instance_ref: fromRef(s.instanceRef),
          mode: s.mode,
          content: s.content,
          prompt: s.prompt,
          updated_by: by,
          updated_at: at,
        })),
      )
      .onConflict(['agent_id', 'prompt_type', 'instance_ref'])
      .merge(['mode', 'content', 'prompt', 'updated_by', 'updated_at']);
  }

  async removeDraft(agentId: string, promptType: PromptType, instanceRef: string | null) {
    const n = await this.db()('prompt_draft_sections')
      .where({ agent_id: agentId, prompt_type: promptType, instance_ref: fromRef(instanceRef) })
      .delete();
    return n > 0;
  }

  private versions() {
    const db = this.db();
    return db('prompt_config_versions as v')
      .leftJoin('users as u', 'u.id', 'v.created_by')
      .select('v.*', 'u.display_name as author_name')
      .select(db.raw('(select count(*) from prompt_config_version_items i where i.version_id = v.id)::int as section_count'));
  }

  async newestVersion(agentId: string) {
    const r = await this.versions()
      .where('v.agent_id', agentId)
      .orderBy([
        { column: 'v.version_major', order: 'desc' },
        { column: 'v.version_minor', order: 'desc' },
      ])
      .first();
    return r ? toVersion(r) : null;
  }

  async createVersion(v: Omit<PromptConfigVersion, 'authorName' | 'sectionCount'>, items: PromptSection[]) {
    await this.db()('prompt_config_versions').insert({
      id: v.id,
      agent_id: v.agentId,
      organization_id: v.organizationId,
      version_major: v.versionMajor,
      version_minor: v.versionMinor,
      label: v.label,
      created_by: v.createdBy,
      created_at: v.createdAt,
    });
    if (!items.length) return;
    await this.db()('prompt_config_version_items').insert(
      items.map((s) => ({
        version_id: v.id,
        prompt_type: s.promptType,
        instance_ref: fromRef(s.instanceRef),
        mode: s.mode,
        content: s.content,
        prompt: s.prompt,
      })),
    );
  }

  async listVersions(agentId: string, limit: number) {
    const [{ n }] = await this.db()('prompt_config_versions').where({ agent_id: agentId }).count({ n: '*' });
    const rows = await this.versions()
      .where('v.agent_id', agentId)
      .orderBy([
        { column: 'v.version_major', order: 'desc' },
        { column: 'v.version_minor', order: 'desc' },
      ])
      .limit(limit);
    return { items: rows.map(toVersion), total: Number(n) };
  }

  async findVersion(agentId: string, versionId: string) {
    if (!UUID.test(versionId)) return null;
    const r = await this.versions().where({ 'v.agent_id': agentId, 'v.id': versionId }).first();
    return r ? toVersion(r) : null;
  }

  async versionItems(versionId: string) {
    const rows = await this.db()('prompt_config_version_items').where({ version_id: versionId });
    return rows.map(toSection).sort(bySection);
  }

  async live(agentId: string): Promise<LivePointer | null> {
    const r = await this.db()('prompt_live_pointers as p')
      .join('prompt_config_versions as v', 'v.id', 'p.version_id')
      .leftJoin('users as u', 'u.id', 'p.published_by')
      .where('p.agent_id', agentId)
      .select('p.*', 'v.version_major', 'v.version_minor', 'u.display_name as published_by_name')
      .first();
    if (!r) return null;
    return {
      agentId: r.agent_id,
      versionId: r.version_id,
      versionMajor: Number(r.version_major),
      versionMinor: Number(r.version_minor),
      publishedAt: iso(r.published_at),
      publishedBy: r.published_by ?? null,
      publishedByName: r.published_by_name ?? null,
    };
  }

  async setLive(agentId: string, versionId: string, at: string, by: string | null) {
    await this.db()('prompt_live_pointers')
      .insert({ agent_id: agentId, version_id: versionId, published_at: at, published_by: by })
      .onConflict('agent_id')
      .merge(['version_id', 'published_at', 'published_by']);
  }
}
