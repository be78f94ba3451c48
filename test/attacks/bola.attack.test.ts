import { openApiDocument } from '../../app/http-routes';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { type Caller, type Probe, probesFor, slotsOf } from './bola-probes';
import { operationsOf } from './schema-samples';
import { buildTenantWorld, type TenantWorld } from './tenant-world';

/**
 * BOLA / cross-tenant generator (issue 8): every operation of the OpenAPI document that names a resource in
 * its path, body or query is called by members (owner, member, viewer) and an API key of another
 * organization, with the ids of real resources of the first one, in several forms. Nothing may succeed, nothing
 * of the first organization may appear in an answer, and its rows must be byte-for-byte unchanged afterwards.
 * Then the first organization's viewer tries every state-changing operation on its own organization's resources.
 */
let p: TestPlatform;
let world: TenantWorld;
let ops: ReturnType<typeof operationsOf> = [];

beforeAll(async () => {
  p = await startTestPlatform({
    RATE_LIMIT_PER_IP: '1000000',
    RATE_LIMIT_PER_PRINCIPAL: '1000000',
    PUBLIC_CHAT_PER_MINUTE: '100000',
    PUBLIC_CHAT_PER_IP_PER_MINUTE: '100000',
    PUBLIC_UPLOADS_PER_MINUTE: '100000',
    PUBLIC_UPLOADS_PER_IP_PER_MINUTE: '100000',
  });
  ops = operationsOf(openApiDocument(p.infra));
  world = await buildTenantWorld(p);
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

function tokenOf(caller: Caller): string | null {
  switch (caller) {
    case 'b-owner':
      return world.b.owner.accessToken;
    case 'b-admin':
      return world.b.admin.accessToken;
    case 'b-member':
      return world.b.member.accessToken;
    case 'b-viewer':
      return world.b.viewer.accessToken;
    case 'b-key':
      return world.b.apiKey;
    case 'a-viewer':
      return world.a.viewer.accessToken;
    case 'visitor':
      return null;
  }
}

async function send(probe: Probe): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = {};
  const token = tokenOf(probe.caller);
  if (token) headers.authorization = `Bearer ${token}`;
  let body: FormData | string | undefined;
  if (probe.multipart) {
    const form = new FormData();
    form.append('file', new Blob([Buffer.from('probe')], { type: 'text/plain' }), 'probe.txt');
    body = form;
  } else if (probe.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(probe.body);
  }
  const res = await fetch(`${p.gatewayUrl}${probe.path}`, { method: probe.method, headers, body, redirect: 'manual' });
  return { status: res.status, text: await res.text() };
}

async function runAll(probes: Probe[], concurrency = 8) {
  const results: { probe: Probe; status: number; text: string }[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < probes.length) {
        const probe = probes[next++]!;
        results.push({ probe, ...(await send(probe)) });
      }
    }),
  );
  return results;
}

/**
 * A fingerprint of every row of the organization (and of its users), to prove that nothing was written. Rows of
 * other visitors and users are left out: A's agent is public, so anyone may start a conversation with it or
 * attach a file to their own (public by design, not a cross-tenant write).
 */
async function snapshot(orgId: string, userIds: string[]): Promise<Record<string, string>> {
  const knex = p.infra.db.knex;
  const having = async (column: string) =>
    (
      (await knex('information_schema.columns').where({ table_schema: 'public', column_name: column }).select('table_name')) as {
        table_name: string;
      }[]
    ).map((r) => r.table_name);
  const visitorColumn = new Set(await having('anonymous_id'));
  const userColumn = new Set(await having('user_id'));
  const users = userIds.map((u) => `'${u}'`).join(',');
  const out: Record<string, string> = {};
  // Records of use that background work derives or writes after the request (the analytics recorder's buffer,
  // rollups, learned priors): anyone using A's public agent adds to them by design.
  const derived = (table: string) => table.startsWith('analytics_') || table === 'kb_chunk_priors';
  for (const table of (await having('organization_id')).filter((t) => !derived(t))) {
    let own = '';
    if (visitorColumn.has(table)) own += ` and (anonymous_id is null or anonymous_id = '${world.visitor}')`;
    if (visitorColumn.has(table) && userColumn.has(table)) own += ` and (user_id is null or user_id in (${users}))`;
    const r = await knex.raw(
      `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h from "${table}" t where organization_id = ?${own}`,
      [orgId],
    );
    out[table] = `${r.rows[0].n}:${r.rows[0].h}`;
  }
  const u = await knex.raw(`select md5(string_agg(u::text, '|' order by u::text)) as h from users u where id = any(?)`, [userIds]);
  out.users = u.rows[0].h;
  return out;
}

const allAIds = () => Object.entries(world.ids).flatMap(([kind, list]) => (kind === 'agentSlug' ? [] : list));

function violations(results: { probe: Probe; status: number; text: string }[], checkLeaks: boolean) {
  const secret = allAIds().filter((id) => id.length >= 8 && !world.publicIds.includes(id));
  const out: string[] = [];
  for (const { probe, status, text } of results) {
    const where = `${probe.operationId} as ${probe.caller}: ${probe.method} ${probe.path}`;
    if (status >= 500) out.push(`${where} -> ${status}`);
    else if (status === 429) out.push(`${where} -> 429 (limits too low for the suite)`);
    else if (probe.mustBeDenied && status < 300) out.push(`${where} -> ${status} (cross-tenant success)`);
    if (checkLeaks) {
      const lower = text.toLowerCase();
      const leaked = secret.filter((id) => !probe.sent.includes(id) && lower.includes(id.toLowerCase()));
      if (leaked.length) out.push(`${where} -> leaks ${leaked.join(', ')}`);
    }
  }
  return out;
}

describe('BOLA generator', () => {
  it('maps every identifier of every operation to a resource or a literal (add it to bola-params.ts)', () => {
    const unmapped = ops.flatMap((op) => slotsOf(op).unmapped.map((u) => `${op.operationId}: ${u}`));
    expect(unmapped).toEqual([]);
  });

  it('another organization reads or writes nothing of this one (>= 2,000 probes)', async () => {
    const probes = ops.flatMap((op) => probesFor(op, world));
    const probed = new Set(probes.map((pr) => pr.operationId));
    const withTenantIds = ops.filter((op) => slotsOf(op).slots.some((s) => !s.resource.includes(':'))).map((o) => o.operationId);
    expect(withTenantIds.filter((id) => !probed.has(id))).toEqual([]);

    const before = await snapshot(world.a.orgId, world.ids.user!);
    const results = await runAll(probes);
    const after = await snapshot(world.a.orgId, world.ids.user!);
    const found = violations(results, true);
    console.log(
      `BOLA: ${probes.length} cross-tenant probes over ${probed.size} operations; ${found.length} violations; ` +
        `statuses ${JSON.stringify(countBy(results.map((r) => r.status)))}`,
    );
    expect(found).toEqual([]);
    expect(after).toEqual(before);
    expect(probes.length).toBeGreaterThanOrEqual(2000);
  }, 600_000);

  it('a viewer of the organization changes nothing it may not (roles)', async () => {
    // searchGraph is a read (POST for its body), allowed to readers of the knowledge base like searchKnowledge.
    const VIEWER_MAY = new Set(['chatWithAgent', 'createConversation', 'switchOrganization', 'createContextToken', 'searchGraph']);
    const writes = ops.filter((op) => op.lane === 'user' && op.method !== 'GET' && !VIEWER_MAY.has(op.operationId));
    const probes = writes.flatMap((op) => probesFor(op, world, ['a-viewer'])).filter((pr) => !pr.path.endsWith('/'));
    const results = await runAll(probes);
    const succeeded = results
      .filter((r) => r.status < 300)
      .map((r) => `${r.probe.operationId}: ${r.probe.method} ${r.probe.path} -> ${r.status}`);
    console.log(
      `BOLA (viewer): ${probes.length} probes over ${new Set(probes.map((x) => x.operationId)).size} operations; ${succeeded.length} succeeded`,
    );
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(succeeded).toEqual([]);
  }, 600_000);
});

function countBy(values: number[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}
