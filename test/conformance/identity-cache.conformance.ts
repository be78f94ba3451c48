import { AsyncResource } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';

import type { Database } from '../../adapters/postgres/database';
import { IdentityCache } from '../../adapters/postgres/identity-cache';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { verifyApiKey } from '../../core/api-keys/api-keys';
import { resolveActor } from '../../core/identity/resolve-actor';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { sha256Hex } from '../../core/shared/hash';

/**
 * The identity cache over a real store: every write that changes who a caller is takes effect on the very
 * next read, while repeated reads are served from memory (counted by a second, uncached store).
 */
export function identityCacheConformance(label: string, open: () => Promise<{ db: Database; teardown(): Promise<void> }>) {
  describe(`identity cache (${label})`, () => {
    let fx: { db: Database; teardown(): Promise<void> };
    let store: KnexStore;
    let queries = 0;
    const now = '2026-11-24T00:00:00.000Z';
    const orgId = randomUUID();
    const clock = { now: () => new Date(now) };

    beforeAll(async () => {
      fx = await open();
      await migrate(fx.db.knex, [relationalMigrations]);
      store = new KnexStore(fx.db.knex, { identityCache: new IdentityCache({ ttlMs: 600_000 }) });
      fx.db.knex.on('query', () => queries++);
      await store.repos.organizations.create({
        id: orgId,
        name: 'Cache Org',
        slug: `cache-${randomBytes(4).toString('hex')}`,
        plan: { seats: 5, agents: 5, knowledgeBases: 5 },
        createdAt: now,
      });
    }, 180_000);
    afterAll(() => fx?.teardown());

    async function member(role: 'owner' | 'member' = 'member'): Promise<ForwardedIdentity> {
      const userId = randomUUID();
      await store.repos.users.create({
        id: userId,
        email: `${userId}@example.test`,
        displayName: 'Cached',
        passwordHash: null,
        emailVerified: true,
        accountType: 'password',
        platformRole: 'user',
        status: 'active',
        googleSubject: null,
        createdAt: now,
        updatedAt: now,
        tokenVersion: 0,
      });
      await store.repos.memberships.add({ organizationId: orgId, userId, role, createdAt: now });
      const identity = { userId, organizationId: orgId, email: null, platformRole: null, orgRole: null };
      return { ...identity, apiKeyId: null, apiKeyScopes: [], clientIp: '127.0.0.1', tokenVersion: 0 };
    }

    it('serves repeated identity reads from memory', async () => {
      const id = await member();
      await resolveActor(store, id);
      const before = queries;
      for (let i = 0; i < 5; i++) expect((await resolveActor(store, id))?.orgRole).toBe('member');
      expect(queries).toBe(before);
    });

    it('a suspended user is refused on the next request', async () => {
      const id = await member();
      expect(await resolveActor(store, id)).not.toBeNull();
      await store.repos.users.update(id.userId!, { status: 'suspended' }, now);
      await expect(resolveActor(store, id)).rejects.toMatchObject({ code: 'ACCOUNT_SUSPENDED' });
    });

    it('a removed member loses the organization on the next request', async () => {
      const id = await member();
      expect((await resolveActor(store, id))?.organizationId).toBe(orgId);
      await store.repos.memberships.remove(orgId, id.userId!);
      expect(await resolveActor(store, id)).toMatchObject({ organizationId: null, orgRole: null });
    });

    it('a changed role applies on the next request, also when changed inside a transaction', async () => {
      const id = await member();
      expect((await resolveActor(store, id))?.orgRole).toBe('member');
      await store.repos.memberships.updateRole(orgId, id.userId!, 'admin');
      expect((await resolveActor(store, id))?.orgRole).toBe('admin');
      // A request outside the transaction (its own async path) reading before the commit gets the old row and
      // caches it (on a real server; the single-session PGlite makes it wait for the commit instead).
      const outside = AsyncResource.bind(() => store.repos.users.findWithRole(id.userId!, orgId));
      await store.transaction(async (repos) => {
        await repos.memberships.updateRole(orgId, id.userId!, 'viewer');
        if (fx.db.kind === 'postgres') expect((await outside())?.role).toBe('admin');
      });
      // Once committed, the next request sees the new role.
      expect((await resolveActor(store, id))?.orgRole).toBe('viewer');
    });

    it('a bumped token version (logout everywhere, password change) refuses older tokens at once', async () => {
      const id = await member();
      expect(await resolveActor(store, id)).not.toBeNull();
      const version = await store.repos.users.bumpTokenVersion(id.userId!, now);
      await expect(resolveActor(store, id)).rejects.toMatchObject({ code: 'AUTHENTICATION_FAILED' });
      expect(await resolveActor(store, { ...id, tokenVersion: version })).not.toBeNull();
    });

    it('a revoked API key is refused on the next request; its lastUsedAt is not rewritten every time', async () => {
      const owner = await member('owner');
      const raw = `ap_live_${randomBytes(24).toString('hex')}`;
      const keyId = randomUUID();
      await store.repos.apiKeys.create({
        id: keyId,
        organizationId: orgId,
        name: 'cached key',
        scopes: ['agents:write'],
        prefix: raw.slice(0, 12),
        secretHash: sha256Hex(raw),
        createdBy: owner.userId!,
        createdAt: now,
        lastUsedAt: null,
        revokedAt: null,
      });
      const deps = { store, clock, ids: { next: () => randomUUID() } } as unknown as Parameters<typeof verifyApiKey>[0];
      expect(await verifyApiKey(deps, raw)).toMatchObject({ keyId, organizationId: orgId });
      const before = queries;
      expect(await verifyApiKey(deps, raw)).toMatchObject({ keyId });
      expect(queries).toBe(before);
      await store.repos.apiKeys.revoke(orgId, keyId, now);
      expect(await verifyApiKey(deps, raw)).toBeNull();
    });

    it('the user row and memberships (what /api/auth/me answers) follow their writes', async () => {
      const id = await member();
      const uid = id.userId!;
      expect((await store.repos.users.findById(uid))?.displayName).toBe('Cached');
      expect((await store.repos.memberships.listForUser(uid)).map((m) => m.role)).toEqual(['member']);
      await store.repos.users.update(uid, { displayName: 'Renamed' }, now);
      expect((await store.repos.users.findById(uid))?.displayName).toBe('Renamed');
      await store.repos.memberships.updateRole(orgId, uid, 'editor');
      expect((await store.repos.memberships.listForUser(uid)).map((m) => m.role)).toEqual(['editor']);
      await store.repos.memberships.remove(orgId, uid);
      expect(await store.repos.memberships.listForUser(uid)).toEqual([]);
    });

    it('a peer process invalidation (from the event bus) is applied', async () => {
      const id = await member();
      const peer = new KnexStore(fx.db.knex); // another process: writes without this cache
      const cache = store.identityCache!;
      const sent: unknown[] = [];
      const peerCache = new IdentityCache({ ttlMs: 600_000 });
      peerCache.onInvalidate = (m) => sent.push(m);
      expect((await resolveActor(store, id))?.orgRole).toBe('member');
      await peer.repos.memberships.updateRole(orgId, id.userId!, 'editor');
      peerCache.invalidate({ kind: 'user', userId: id.userId! });
      for (const m of sent) cache.apply(m as Parameters<IdentityCache['apply']>[0]);
      expect((await resolveActor(store, id))?.orgRole).toBe('editor');
    });
  });
}
