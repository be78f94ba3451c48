import { randomUUID } from 'node:crypto';

import type { Database } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import type { ApiKey } from '../../core/api-keys/api-key';
import type { OrgRole } from '../../core/identity/roles';
import type { RefreshTokenRecord, User } from '../../core/identity/user';
import type { Invitation } from '../../core/organizations/organization';
import type { Repositories } from '../../core/ports/repositories';

export interface RelationalStoreFixture {
  /** An empty database: the suite runs the migrations itself. */
  db: Database;
  teardown(): Promise<void>;
}

/** Opening PGlite or creating a database and migrating it is slow on a loaded machine: a ceiling, not a timing check. */
const SETUP_TIMEOUT_MS = 180_000;

const at = (offsetMs = 0) => new Date(Date.UTC(2025, 0, 1) + offsetMs).toISOString();
const later = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();
const earlier = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();

/** Migrations and every relational repository, against one store (PGlite or a Postgres server). */
export function relationalStoreConformance(name: string, makeFixture: () => Promise<RelationalStoreFixture>): void {
  describe(`relational store conformance: ${name}`, () => {
    let fx: RelationalStoreFixture;
    let store: KnexStore;
    let repos: Repositories;
    let firstRun: string[];

    beforeAll(async () => {
      fx = await makeFixture();
      firstRun = await migrate(fx.db.knex, [relationalMigrations]);
      store = new KnexStore(fx.db.knex);
      repos = store.repos;
    }, SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await fx?.teardown();
    }, SETUP_TIMEOUT_MS);

    const newUser = (over: Partial<User> = {}): User => ({
      id: randomUUID(),
      email: `u-${randomUUID()}@example.com`,
      displayName: 'U',
      passwordHash: 'scrypt$1024$8$1$salt$key',
      emailVerified: false,
      accountType: 'password',
      platformRole: 'user',
      status: 'active',
      googleSubject: null,
      createdAt: at(),
      updatedAt: at(),
      tokenVersion: 0,
      ...over,
    });
    async function newOrg(seats = 5) {
      const id = randomUUID();
      await repos.organizations.create({
        id,
        name: `Org ${id}`,
        slug: `org-${id}`,
        plan: { seats, agents: 25, knowledgeBases: 25 },
        createdAt: at(),
      });
      return id;
    }
    async function member(orgId: string, role: OrgRole = 'member', createdAt = at()) {
      const u = newUser();
      await repos.users.create(u);
      await repos.memberships.add({ organizationId: orgId, userId: u.id, role, createdAt });
      return u;
    }

    describe('migrations', () => {
      it('apply every relational migration on an empty database, in order', () => {
        expect(firstRun).toEqual(relationalMigrations.migrations.map((m) => m.name));
      });
      it('are idempotent: a second run applies nothing', async () => {
        expect(await migrate(fx.db.knex, [relationalMigrations])).toEqual([]);
      });
    });

    describe('users', () => {
      it('stores, finds (email case-insensitively) and updates users', async () => {
        const u = newUser({ email: `mixed-${randomUUID()}@example.com`, googleSubject: `g-${randomUUID()}` });
        await repos.users.create(u);
        expect(await repos.users.findById(u.id)).toEqual(u);
        expect(await repos.users.findByEmail(u.email.toUpperCase())).toEqual(u);
        expect(await repos.users.findByGoogleSubject(u.googleSubject!)).toEqual(u);
        expect(await repos.users.findById(randomUUID())).toBeNull();
        expect(await repos.users.findByEmail('missing@example.com')).toBeNull();

        await repos.users.update(
          u.id,
          { status: 'suspended', emailVerified: true, displayName: 'Renamed', platformRole: 'superadmin' },
          at(1000),
        );
        expect(await repos.users.findById(u.id)).toEqual({
          ...u,
          status: 'suspended',
          emailVerified: true,
          displayName: 'Renamed',
          platformRole: 'superadmin',
          updatedAt: at(1000),
        });
      });

      it('bumps the token version one at a time (revocation of every access token issued so far)', async () => {
        const u = newUser();
        await repos.users.create(u);
        expect(await repos.users.bumpTokenVersion(u.id, at(2000))).toBe(1);
        expect(await repos.users.bumpTokenVersion(u.id, at(3000))).toBe(2);
        expect(await repos.users.findById(u.id)).toMatchObject({ tokenVersion: 2, updatedAt: at(3000) });
        expect((await repos.users.findWithRole(u.id, null))?.user.tokenVersion).toBe(2);
        await expect(repos.users.bumpTokenVersion(randomUUID(), at(3000))).rejects.toMatchObject({ code: 'NOT_FOUND' });
      });
      it('refuses a second user with the same email or Google subject', async () => {
        const u = newUser({ googleSubject: `g-${randomUUID()}` });
        await repos.users.create(u);
        // A conflict the HTTP edge maps to 409 (two sign-ups racing past the look-up), not a raw driver error.
        await expect(repos.users.create(newUser({ email: u.email }))).rejects.toMatchObject({ code: 'CONFLICT' });
        await expect(repos.users.create(newUser({ googleSubject: u.googleSubject }))).rejects.toMatchObject({ code: 'CONFLICT' });
      });
    });

    describe('organizations and memberships', () => {
      it('stores organizations with their plan; slugs are unique', async () => {
        const id = await newOrg(7);
        const org = await repos.organizations.findById(id);
        expect(org).toEqual({
          id,
          name: `Org ${id}`,
          slug: `org-${id}`,
          plan: { seats: 7, agents: 25, knowledgeBases: 25 },
          createdAt: at(),
        });
        expect(await repos.organizations.slugExists(`org-${id}`)).toBe(true);
        expect(await repos.organizations.slugExists(`org-${randomUUID()}`)).toBe(false);
        await expect(repos.organizations.create({ ...org!, id: randomUUID() })).rejects.toThrow();
      });
      it('adds, lists, counts, re-roles and removes members', async () => {
        const orgA = await newOrg();
        const orgB = await newOrg();
        const owner = await member(orgA, 'owner', at(0));
        const viewer = await member(orgA, 'viewer', at(1000));
        await repos.memberships.add({ organizationId: orgB, userId: owner.id, role: 'admin', createdAt: at(2000) });

        expect(await repos.memberships.find(orgA, owner.id)).toEqual({
          organizationId: orgA,
          userId: owner.id,
          role: 'owner',
          createdAt: at(0),
        });
        expect(await repos.memberships.find(orgB, viewer.id)).toBeNull();
        const mine = await repos.memberships.listForUser(owner.id);
        expect(mine.map((m) => [m.organization.id, m.role])).toEqual([
          [orgA, 'owner'],
          [orgB, 'admin'],
        ]); // oldest first
        expect(mine[0]).toMatchObject({
          organizationId: orgA,
          userId: owner.id,
          createdAt: at(0),
          organization: { id: orgA, slug: `org-${orgA}` },
        });
        expect(await repos.memberships.listMembers(orgA)).toEqual([
          { userId: owner.id, email: owner.email, displayName: 'U', role: 'owner' },
          { userId: viewer.id, email: viewer.email, displayName: 'U', role: 'viewer' },
        ]);
        expect(await repos.memberships.count(orgA)).toBe(2);
        expect(await repos.memberships.countWithRole(orgA, 'owner')).toBe(1);

        await repos.memberships.updateRole(orgA, viewer.id, 'owner');
        expect(await repos.memberships.countWithRole(orgA, 'owner')).toBe(2);
        await repos.memberships.remove(orgA, viewer.id);
        expect(await repos.memberships.count(orgA)).toBe(1);
        await expect(repos.memberships.add({ organizationId: orgA, userId: owner.id, role: 'viewer', createdAt: at() })).rejects.toThrow();
      });
      it('reads a user with their role in one organization (null when not a member, or no organization)', async () => {
        const orgA = await newOrg();
        const orgB = await newOrg();
        const admin = await member(orgA, 'admin');
        await member(orgB, 'owner');
        expect(await repos.users.findWithRole(admin.id, orgA)).toEqual({ user: admin, role: 'admin' });
        expect(await repos.users.findWithRole(admin.id, orgB)).toEqual({ user: admin, role: null });
        expect(await repos.users.findWithRole(admin.id, null)).toEqual({ user: admin, role: null });
        expect(await repos.users.findWithRole(randomUUID(), orgA)).toBeNull();
      });
    });

    describe('refresh tokens', () => {
      async function token(over: Partial<RefreshTokenRecord> = {}) {
        const u = over.userId ? null : newUser();
        if (u) await repos.users.create(u);
        const r: RefreshTokenRecord = {
          id: randomUUID(),
          familyId: randomUUID(),
          userId: u?.id ?? over.userId!,
          activeOrganizationId: null,
          expiresAt: later(7),
          usedAt: null,
          revokedAt: null,
          createdAt: at(),
          ...over,
        };
        await repos.refreshTokens.create(r);
        return r;
      }

      it('stores records and marks one used once', async () => {
        const r = await token({ activeOrganizationId: randomUUID() });
        expect(await repos.refreshTokens.findById(r.id)).toEqual(r);
        expect(await repos.refreshTokens.markUsed(r.id, at(5))).toBe(true);
        expect(await repos.refreshTokens.markUsed(r.id, at(6))).toBe(false);
        expect((await repos.refreshTokens.findById(r.id))!.usedAt).toBe(at(5));
        expect(await repos.refreshTokens.markUsed(randomUUID(), at())).toBe(false);
      });

      it('lets exactly one of many concurrent refreshes win (markUsed race)', async () => {
        const r = await token();
        const plain = await Promise.all(Array.from({ length: 8 }, () => repos.refreshTokens.markUsed(r.id, at())));
        expect(plain.filter(Boolean)).toHaveLength(1);

        const r2 = await token();
        const inTransactions = await Promise.all(
          Array.from({ length: 4 }, () => store.transaction((tx) => tx.refreshTokens.markUsed(r2.id, at()))),
        );
        expect(inTransactions.filter(Boolean)).toHaveLength(1);
      });

      it('revokes a family (and nothing else), and every token of a user', async () => {
        const first = await token();
        const sibling = await token({ userId: first.userId, familyId: first.familyId });
        const otherFamily = await token({ userId: first.userId });
        await repos.refreshTokens.revokeFamily(first.familyId, at(9));
        expect((await repos.refreshTokens.findById(sibling.id))!.revokedAt).toBe(at(9));
        expect(await repos.refreshTokens.markUsed(sibling.id, at())).toBe(false);
        expect((await repos.refreshTokens.findById(otherFamily.id))!.revokedAt).toBeNull();
        await repos.refreshTokens.revokeAllForUser(first.userId, at(10));
        expect(await repos.refreshTokens.markUsed(otherFamily.id, at())).toBe(false);
      });
    });

    describe('OAuth states', () => {
      it('are taken once', async () => {
        const state = { state: `s-${randomUUID()}`, codeVerifier: 'v'.repeat(64), redirectTo: null, expiresAt: later(1) };
        await repos.oauthStates.create(state);
        const takes = await Promise.all([repos.oauthStates.take(state.state), repos.oauthStates.take(state.state)]);
        expect(takes.filter(Boolean)).toEqual([state]);
        expect(await repos.oauthStates.take(state.state)).toBeNull();
      });
    });

    describe('SSO providers, identities and states', () => {
      it('round-trip providers (JSON fields included), link subjects to users, take states once', async () => {
        const orgId = await newOrg();
        const provider = {
          ...{ id: randomUUID(), slug: `p-${randomUUID().slice(0, 8)}`, name: 'Okta', preset: 'oidc' as const },
          ...{ issuerUrl: 'https://idp.example.com', clientId: 'c', clientSecret: 's', allowedEmailDomains: ['example.com'] },
          ...{ organizationId: orgId, defaultRole: 'member' as const, groupClaim: 'groups', groupRoles: { eng: 'editor' as const } },
          ...{ enabled: true, createdAt: at(), updatedAt: at() },
        };
        await repos.ssoProviders.create(provider);
        expect(await repos.ssoProviders.findBySlug(provider.slug)).toEqual(provider);
        await repos.ssoProviders.update({ ...provider, enabled: false, groupRoles: {}, updatedAt: at(5) });
        expect(await repos.ssoProviders.findById(provider.id)).toEqual({ ...provider, enabled: false, groupRoles: {}, updatedAt: at(5) });
        expect((await repos.ssoProviders.list()).map((x) => x.id)).toContain(provider.id);
        const u = await member(orgId);
        await repos.ssoIdentities.link({ providerId: provider.id, subject: 'sub-1', userId: u.id, createdAt: at() });
        expect(await repos.ssoIdentities.findUserId(provider.id, 'sub-1')).toBe(u.id);
        expect(await repos.ssoIdentities.findUserId(provider.id, 'sub-2')).toBeNull();
        const state = {
          state: `s-${randomUUID()}`,
          providerId: provider.id,
          codeVerifier: 'v',
          nonce: 'n',
          expiresAt: later(1),
          userId: null,
        };
        await repos.ssoStates.create(state);
        const takes = await Promise.all([repos.ssoStates.take(state.state), repos.ssoStates.take(state.state)]);
        expect(takes.filter(Boolean)).toEqual([state]);
        // A link flow remembers the signed-in user who started it.
        const linking = { ...state, state: `s-${randomUUID()}`, userId: u.id };
        await repos.ssoStates.create(linking);
        expect(await repos.ssoStates.take(linking.state)).toEqual(linking);
        expect(await repos.ssoProviders.delete(provider.id)).toBe(true);
        expect(await repos.ssoIdentities.findUserId(provider.id, 'sub-1')).toBeNull();
      });
    });

    describe('invitations', () => {
      const invitation = (orgId: string, over: Partial<Invitation> = {}): Invitation => ({
        id: randomUUID(),
        organizationId: orgId,
        email: `i-${randomUUID()}@example.com`,
        role: 'member',
        status: 'pending',
        tokenHash: randomUUID().replace(/-/g, ''),
        invitedBy: randomUUID(),
        expiresAt: later(7),
        createdAt: at(),
        ...over,
      });

      it('stores and finds invitations within their organization', async () => {
        const orgA = await newOrg();
        const orgB = await newOrg();
        const i = invitation(orgA, { role: 'viewer' });
        await repos.invitations.create(i);
        expect(await repos.invitations.findById(orgA, i.id)).toEqual(i);
        expect(await repos.invitations.findById(orgB, i.id)).toBeNull();
        expect(await repos.invitations.findByTokenHash(i.tokenHash)).toEqual(i);
        await repos.invitations.setStatus(i.id, 'accepted');
        expect((await repos.invitations.findById(orgA, i.id))!.status).toBe('accepted');
        await expect(repos.invitations.create(invitation(orgA, { tokenHash: i.tokenHash }))).rejects.toThrow();
      });

      it('counts only pending, unexpired invitations (they hold seats)', async () => {
        const org = await newOrg();
        const now = new Date().toISOString();
        await repos.invitations.create(invitation(org, { createdAt: at(1) }));
        await repos.invitations.create(invitation(org, { createdAt: at(2) }));
        await repos.invitations.create(invitation(org, { expiresAt: earlier(1), createdAt: at(3) }));
        await repos.invitations.create(invitation(org, { status: 'revoked', createdAt: at(4) }));
        await repos.invitations.create(invitation(org, { status: 'accepted', createdAt: at(5) }));
        await repos.invitations.create(invitation(await newOrg()));
        expect(await repos.invitations.countPending(org, now)).toBe(2);
        const list = await repos.invitations.listForOrganization(org);
        expect(list.map((i) => i.createdAt)).toEqual([at(5), at(4), at(3), at(2), at(1)]); // newest first
      });

      it('locks the organization row inside a transaction', async () => {
        const org = await newOrg();
        await expect(
          store.transaction(async (tx) => {
            await tx.invitations.lockOrganization(org);
            return tx.invitations.countPending(org, new Date().toISOString());
          }),
        ).resolves.toBe(0);
      });
    });

    describe('API keys', () => {
      const apiKey = (orgId: string, over: Partial<ApiKey> = {}): ApiKey => ({
        id: randomUUID(),
        organizationId: orgId,
        name: 'key',
        scopes: ['agents:write', 'contacts:read'],
        prefix: 'ap_live_abcdef',
        secretHash: randomUUID().replace(/-/g, ''),
        createdBy: randomUUID(),
        createdAt: at(),
        lastUsedAt: null,
        revokedAt: null,
        ...over,
      });

      it('stores keys, finds them by hash and by id within the organization, lists and revokes them', async () => {
        const orgA = await newOrg();
        const orgB = await newOrg();
        const k = apiKey(orgA);
        const empty = apiKey(orgA, { scopes: [], createdAt: at(1) });
        await repos.apiKeys.create(k);
        await repos.apiKeys.create(empty);
        expect(await repos.apiKeys.findBySecretHash(k.secretHash)).toEqual(k);
        expect(await repos.apiKeys.findById(orgA, empty.id)).toEqual(empty);
        expect(await repos.apiKeys.findById(orgB, k.id)).toBeNull();
        expect((await repos.apiKeys.listForOrganization(orgA)).map((x) => x.id)).toEqual([empty.id, k.id]);

        expect(await repos.apiKeys.revoke(orgB, k.id, at(5))).toBe(false);
        expect(await repos.apiKeys.revoke(orgA, k.id, at(5))).toBe(true);
        expect(await repos.apiKeys.revoke(orgA, k.id, at(6))).toBe(false);
        expect((await repos.apiKeys.findBySecretHash(k.secretHash))!.revokedAt).toBe(at(5));
        expect((await repos.apiKeys.listForOrganization(orgA)).map((x) => x.id)).toEqual([empty.id]);

        await repos.apiKeys.touch(empty.id, at(7));
        expect((await repos.apiKeys.findById(orgA, empty.id))!.lastUsedAt).toBe(at(7));
        await expect(repos.apiKeys.create(apiKey(orgA, { secretHash: k.secretHash }))).rejects.toThrow();
      });
    });

    describe('wallets and billing events', () => {
      it('adjusts balances atomically with 8 decimal places', async () => {
        const org = await newOrg();
        await repos.wallets.create({ organizationId: org, balanceUsd: 5, updatedAt: at() });
        expect(await repos.wallets.find(org)).toEqual({ organizationId: org, balanceUsd: 5, updatedAt: at() });
        expect(await repos.wallets.adjust(org, -0.12345678, at(1))).toBe(4.87654322);
        const results = await Promise.all(Array.from({ length: 10 }, () => repos.wallets.adjust(org, 0.1, at(2))));
        expect(Math.max(...results)).toBe(5.87654322);
        expect(new Set(results).size).toBe(10); // each adjustment saw its own new balance
        expect(await repos.wallets.find(org)).toEqual({ organizationId: org, balanceUsd: 5.87654322, updatedAt: at(2) });
        expect(await repos.wallets.adjust(org, -10, at(3))).toBe(-4.12345678);
        await expect(repos.wallets.adjust(randomUUID(), 1, at())).rejects.toThrow();
        expect(await repos.wallets.find(randomUUID())).toBeNull();
      });

      it('records billing events and lists the newest first', async () => {
        const org = await newOrg();
        for (let i = 0; i < 3; i++) {
          await repos.billingEvents.record({
            id: randomUUID(),
            organizationId: org,
            kind: i === 0 ? 'initial_credit' : 'chat',
            model: i === 0 ? null : 'local/extractive',
            promptTokens: 10 * i,
            completionTokens: i,
            providerCostUsd: 0.001 * i,
            costUsd: 0.0012 * i,
            reference: { conversationId: `c-${i}`, nested: { n: i } },
            createdAt: at(i * 1000),
          });
        }
        const events = await repos.billingEvents.listRecent(org, 2);
        expect(events).toHaveLength(2);
        expect(events[0]).toEqual(
          expect.objectContaining({
            kind: 'chat',
            model: 'local/extractive',
            promptTokens: 20,
            completionTokens: 2,
            providerCostUsd: 0.002,
            costUsd: 0.0024,
            reference: { conversationId: 'c-2', nested: { n: 2 } },
            createdAt: at(2000),
          }),
        );
        expect(events[1]!.createdAt).toBe(at(1000));
        expect(await repos.billingEvents.listRecent(await newOrg(), 10)).toEqual([]);
      });
    });

    describe('audit log', () => {
      it('records entries under their organization; lists newest first, filtered and paged', async () => {
        const org = await newOrg();
        const other = await newOrg();
        const actions = ['agent.delete', 'prompt_config.save', 'agent.delete'];
        for (const [i, action] of actions.entries()) {
          await repos.audit.record({
            id: randomUUID(),
            organizationId: org,
            actorId: i === 1 ? null : randomUUID(),
            action,
            resourceType: 'agent',
            resourceId: `r-${i}`,
            metadata: { i, list: [1, 2] },
            createdAt: at(i * 1000),
          });
        }
        const all = await repos.audit.list(org, { limit: 10, offset: 0 });
        expect(all.total).toBe(3);
        expect(all.items.map((e) => e.resourceId)).toEqual(['r-2', 'r-1', 'r-0']);
        expect(all.items[1]).toMatchObject({
          organizationId: org,
          actorId: null,
          action: 'prompt_config.save',
          metadata: { i: 1, list: [1, 2] },
          createdAt: at(1000),
        });
        const filtered = await repos.audit.list(org, { limit: 1, offset: 1, action: 'agent.delete' });
        expect(filtered.total).toBe(2);
        expect(filtered.items.map((e) => e.resourceId)).toEqual(['r-0']);
        expect(await repos.audit.list(other, { limit: 10, offset: 0 })).toEqual({ total: 0, items: [] });
      });
    });

    describe('transactions', () => {
      it('roll back every write when the work throws, and nested transactions join the open one', async () => {
        const u = newUser();
        await expect(
          store.transaction(async (tx) => {
            await tx.users.create(u);
            await store.transaction(async (inner) => inner.users.update(u.id, { displayName: 'inner' }, at(1)));
            expect((await store.repos.users.findById(u.id))!.displayName).toBe('inner'); // same transaction
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await repos.users.findById(u.id)).toBeNull();
      });

      it('run afterCommit work once the outermost transaction committed, and never after a rollback', async () => {
        const u = newUser();
        let seen: Promise<string | null> | undefined;
        await store.transaction(async (tx) => {
          await tx.users.create(u);
          // A reader outside the transaction (another connection, a queue consumer) must find the row.
          await store.transaction(async () => store.afterCommit(() => (seen = repos.users.findById(u.id).then((x) => x?.id ?? null))));
          expect(seen).toBeUndefined(); // not while the outer transaction is open
        });
        await new Promise((r) => setTimeout(r, 10));
        expect(await seen).toBe(u.id);
        let rolledBack = false;
        await expect(
          store.transaction(async () => {
            store.afterCommit(() => (rolledBack = true));
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        await new Promise((r) => setTimeout(r, 10));
        expect(rolledBack).toBe(false);
      });
    });
  });
}
