import type { BuildMode, BuildPatch, BuildPhase, BuildRecord, BuildRepository, IdempotencyRecord } from '../../../core/provisioning/build';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const TABLE = 'provisioning_builds';
const KEYS = 'provisioning_idempotency_keys';

const toBuild = (r: Record<string, unknown>): BuildRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  apiKeyId: r.api_key_id as string,
  createdBy: r.created_by as string,
  handle: r.handle as string,
  sourceType: r.source_type as string,
  url: r.url as string,
  mode: r.mode as BuildMode,
  intent: (r.intent as string | null) ?? null,
  model: (r.model as string | null) ?? null,
  phase: r.phase as BuildPhase,
  status: r.status as BuildRecord['status'],
  state: (r.state as BuildRecord['state']) ?? {},
  agentId: (r.agent_id as string | null) ?? null,
  knowledgeBaseId: (r.knowledge_base_id as string | null) ?? null,
  agentSlug: (r.agent_slug as string | null) ?? null,
  runs: Number(r.runs),
  leaseUntil: isoOrNull(r.lease_until),
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  finishedAt: isoOrNull(r.finished_at),
});

const patchColumns = (patch: BuildPatch): Record<string, unknown> => {
  const row: Record<string, unknown> = {};
  if (patch.phase !== undefined) row.phase = patch.phase;
  if (patch.status !== undefined) row.status = patch.status;
  if (patch.state !== undefined) row.state = JSON.stringify(patch.state);
  if (patch.agentId !== undefined) row.agent_id = patch.agentId;
  if (patch.knowledgeBaseId !== undefined) row.knowledge_base_id = patch.knowledgeBaseId;
  if (patch.agentSlug !== undefined) row.agent_slug = patch.agentSlug;
  if (patch.leaseUntil !== undefined) row.lease_until = patch.leaseUntil;
  if (patch.finishedAt !== undefined) row.finished_at = patch.finishedAt;
  return row;
};

export class KnexBuildRepository implements BuildRepository {
  constructor(private readonly db: DbHandle) {}

  async insertActive(build: BuildRecord): Promise<{ build: BuildRecord; created: boolean }> {
    const rows = await this.db()(TABLE)
      .insert({
        id: build.id,
        organization_id: build.organizationId,
        api_key_id: build.apiKeyId,
        created_by: build.createdBy,
        handle: build.handle,
        source_type: build.sourceType,
        url: build.url,
        mode: build.mode,
        intent: build.intent,
        model: build.model,
        phase: build.phase,
        status: 'active',
        state: JSON.stringify(build.state),
        runs: 0,
        created_at: build.createdAt,
        updated_at: build.updatedAt,
      })
      .onConflict(this.db().raw(`(organization_id, handle) WHERE status = 'active'`))
      .ignore()
      .returning('*');
    if (rows.length) return { build: toBuild(rows[0]), created: true };
    const existing = await this.db()(TABLE)
      .where({ organization_id: build.organizationId, handle: build.handle, status: 'active' })
      .first();
    // The active build ended between the insert and this read: the caller retries.
    if (!existing) return this.insertActive(build);
    return { build: toBuild(existing), created: false };
  }

  async find(id: string) {
    const r = await this.db()(TABLE).where({ id }).first();
    return r ? toBuild(r) : null;
  }

  async latestReady(organizationId: string, handle: string, since: string) {
    const r = await this.db()(TABLE)
      .where({ organization_id: organizationId, handle, status: 'ready' })
      .where('finished_at', '>', since)
      .orderBy('finished_at', 'desc')
      .first();
    return r ? toBuild(r) : null;
  }

  async claim(id: string, now: string, until: string) {
    const [r] = await this.db()(TABLE)
      .where({ id, status: 'active' })
      .where((q) => q.whereNull('lease_until').orWhere('lease_until', '<=', now))
      .update({ lease_until: until, updated_at: now, runs: this.db().raw('runs + 1') })
      .returning('*');
    return r ? toBuild(r) : null;
  }

  async update(id: string, patch: BuildPatch, at: string) {
    const [r] = await this.db()(TABLE)
      .where({ id })
      .update({ ...patchColumns(patch), updated_at: at })
      .returning('*');
    return r ? toBuild(r) : null;
  }

  async listStale(before: string, limit: number) {
    const rows = await this.db()(TABLE)
      .where({ status: 'active' })
      .where((q) => q.whereNull('lease_until').orWhere('lease_until', '<=', before))
      .where('updated_at', '<=', before)
      .orderBy('updated_at')
      .limit(limit);
    return rows.map(toBuild);
  }

  async bindIdempotencyKey(record: IdempotencyRecord, at: string) {
    const rows = await this.db()(KEYS)
      .insert({
        organization_id: record.organizationId,
        key: record.key,
        request_hash: record.requestHash,
        build_id: record.buildId,
        created_at: at,
      })
      .onConflict(['organization_id', 'key'])
      .ignore()
      .returning('*');
    if (rows.length) return { record, created: true };
    const r = await this.db()(KEYS).where({ organization_id: record.organizationId, key: record.key }).first();
    return {
      record: { organizationId: r.organization_id, key: r.key, requestHash: r.request_hash, buildId: r.build_id },
      created: false,
    };
  }

  async rebindIdempotencyKey(organizationId: string, key: string, buildId: string) {
    await this.db()(KEYS).where({ organization_id: organizationId, key }).update({ build_id: buildId });
  }
}
