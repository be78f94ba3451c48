import { randomUUID } from 'node:crypto';

import type { Database } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { CryptoIdGenerator } from '../../adapters/system/crypto.id-generator';
import type { Agent } from '../../core/agents/agent';
import type { AgentDeps } from '../../core/agents/agent-deps';
import type { SetupSourceIngestion } from '../../core/agents/agent-deps';
import { createAgent } from '../../core/agents/create-agent';
import { updateAgent } from '../../core/agents/update-agent';
import type { Actor } from '../../core/identity/actor';
import type { Repositories } from '../../core/ports/repositories';
import { publishPromptConfig, savePromptConfig } from '../../core/prompts/prompt-commands';
import { resolveSystemPrompt, resolveWelcome } from '../../core/prompts/resolve-prompt';

/** These suites never set up agents from sources. */
const noSourceIngestion: SetupSourceIngestion = { start: async () => undefined };

export interface AgentStoreFixture {
  /** An empty database: the suite runs the migrations. */
  db: Database;
  teardown(): Promise<void>;
}

/** The agents and prompt-configuration repositories and their serialisation, on PGlite or a Postgres server. */
export function agentStoreSuite(name: string, makeFixture: () => Promise<AgentStoreFixture>) {
  describe(`agent and prompt store: ${name}`, () => {
    let fx: AgentStoreFixture;
    let store: KnexStore;
    let repos: Repositories;
    let deps: AgentDeps;
    let actor: Actor;

    beforeAll(async () => {
      fx = await makeFixture();
      await migrate(fx.db.knex, [relationalMigrations]);
      store = new KnexStore(fx.db.knex);
      repos = store.repos;
      const now = new Date().toISOString();
      const orgId = randomUUID();
      const userId = randomUUID();
      await repos.organizations.create({
        id: orgId,
        name: 'Org',
        slug: `org-${orgId}`,
        plan: { seats: 5, agents: 100, knowledgeBases: 25 },
        createdAt: now,
      });
      await repos.users.create({
        id: userId,
        email: `${userId}@example.com`,
        displayName: 'Saver',
        passwordHash: null,
        emailVerified: false,
        accountType: 'password',
        platformRole: 'user',
        status: 'active',
        googleSubject: null,
        createdAt: now,
        updatedAt: now,
      });
      await repos.memberships.add({ organizationId: orgId, userId, role: 'owner', createdAt: now });
      actor = {
        userId,
        email: `${userId}@example.com`,
        displayName: 'Saver',
        platformRole: 'user',
        organizationId: orgId,
        orgRole: 'owner',
      };
      deps = {
        store,
        clock: { now: () => new Date() },
        ids: new CryptoIdGenerator(),
        settings: { defaultModel: 'local/extractive', publicAgentUrl: (s) => `http://x/${s}` },
        setup: { createKnowledgeBase: null, ingestion: noSourceIngestion },
      };
    }, 120_000);
    afterAll(() => fx?.teardown());

    const newAgent = (name = 'Agent') =>
      createAgent(deps, actor, { name, knowledgeBaseIds: [], isDraft: true, tools: [{ toolDefinitionId: 't1', isEnabled: true }] });

    it('runs the 0004 migration with the prompt and conversation tables', async () => {
      for (const table of [
        'agent_versions',
        'prompt_draft_sections',
        'prompt_config_versions',
        'prompt_config_version_items',
        'prompt_live_pointers',
        'conversations',
        'messages',
      ]) {
        expect([table, await fx.db.knex.schema.hasTable(table)]).toEqual([table, true]);
      }
      expect(await fx.db.knex.schema.hasColumn('agents', 'published_at')).toBe(true);
    });

    it('reads, locks, updates and lists agents; maps a taken slug to CONFLICT', async () => {
      const a = await newAgent('Slugged');
      const b = await newAgent('Other');
      const locked = await store.transaction((r) => r.agents.lockForUpdate(actor.organizationId!, a.id));
      expect(locked).toMatchObject({ id: a.id, status: 'draft', publishedAt: null, submittedAt: null });
      expect(await repos.agents.lockForUpdate(randomUUID(), a.id)).toBeNull();
      await repos.agents.update(actor.organizationId!, a.id, {
        slug: `slug-${a.id}`,
        status: 'published',
        isDraft: false,
        publishedAt: new Date().toISOString(),
        distribution: { require_org_membership: false, allowed_group_ids: [] },
      });
      await expect(repos.agents.update(actor.organizationId!, b.id, { slug: `slug-${a.id}` })).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await repos.agents.slugExists(`slug-${a.id}`)).toBe(true);
      const market = await repos.agents.listMarketplace({ limit: 200, offset: 0 });
      expect(market.items.map((x: Agent) => x.id)).toContain(a.id);
      expect(market.items.map((x: Agent) => x.id)).not.toContain(b.id);
      await repos.agents.setGrant({ agentId: b.id, userId: actor.userId, permissions: ['delete'] });
      expect(await repos.agents.grantsFor(b.id, actor.userId)).toEqual(['delete']);
      await repos.agents.setGrant({ agentId: b.id, userId: actor.userId, permissions: [] });
      expect(await repos.agents.listGrants(b.id)).toEqual([]);
    });

    it('keeps prompt drafts, versions and the live pointer per agent', async () => {
      const a = await newAgent();
      const b = await newAgent();
      const at = new Date().toISOString();
      await repos.prompts.upsertDraft(
        actor.organizationId!,
        a.id,
        [{ promptType: 'system', instanceRef: null, mode: 'fixed', content: 'one', prompt: null }],
        at,
        actor.userId,
      );
      await repos.prompts.upsertDraft(
        actor.organizationId!,
        a.id,
        [
          { promptType: 'system', instanceRef: null, mode: 'fixed', content: 'two', prompt: null },
          { promptType: 'custom_tool_instructions', instanceRef: 't1', mode: 'generated', content: null, prompt: 'p' },
        ],
        at,
        null,
      );
      expect((await repos.prompts.draft(a.id)).map((s) => [s.promptType, s.instanceRef, s.content])).toEqual([
        ['custom_tool_instructions', 't1', null],
        ['system', null, 'two'],
      ]);
      expect(await repos.prompts.removeDraft(a.id, 'custom_tool_instructions', 't1')).toBe(true);
      expect(await repos.prompts.removeDraft(a.id, 'custom_tool_instructions', 't1')).toBe(false);
      const v = await savePromptConfig(deps, actor, a.id, {
        sections: [{ promptType: 'welcome', mode: 'fixed', content: 'Hi {{user.name}}' }],
      });
      expect(await repos.prompts.findVersion(b.id, v.version.id)).toBeNull();
      // Spec 2.13: the initial v1.0 has no author; later versions name theirs.
      expect(await repos.prompts.findVersion(a.id, v.version.id)).toMatchObject({
        versionMajor: 1,
        versionMinor: 0,
        sectionCount: 2,
        createdBy: null,
        authorName: null,
      });
      const v11 = await savePromptConfig(deps, actor, a.id, { sections: [] });
      expect(await repos.prompts.findVersion(a.id, v11.version.id)).toMatchObject({
        versionMajor: 1,
        versionMinor: 1,
        createdBy: actor.userId,
        authorName: 'Saver',
      });
      await expect(publishPromptConfig(deps, actor, b.id, v.version.id)).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect(await repos.prompts.live(b.id)).toBeNull();

      const agent = (await repos.agents.findById(actor.organizationId!, a.id))!;
      expect(await resolveSystemPrompt(repos, agent, 'draft')).toBe('two');
      expect(await resolveSystemPrompt(repos, agent, 'live')).toMatch(/helpful assistant/);
      expect(await resolveWelcome(repos, a.id, 'live', { user: { name: 'Ada' } })).toBeNull();
      await publishPromptConfig(deps, actor, a.id);
      expect(await resolveSystemPrompt(repos, agent, 'live')).toBe('two');
      expect(await resolveWelcome(repos, a.id, 'live', { user: { name: 'Ada' } })).toEqual({ mode: 'fixed', text: 'Hi Ada' });
    });

    it('the unique (agent, major, minor) constraint refuses a duplicate version number', async () => {
      const a = await newAgent();
      const row = (id: string) => ({
        id,
        agentId: a.id,
        organizationId: actor.organizationId!,
        versionMajor: 1,
        versionMinor: 0,
        label: null,
        createdAt: new Date().toISOString(),
        createdBy: null,
      });
      await repos.prompts.createVersion(row(randomUUID()), []);
      await expect(repos.prompts.createVersion(row(randomUUID()), [])).rejects.toBeTruthy();
    });

    it('serialises concurrent saves of one agent into consecutive versions', async () => {
      const a = await newAgent();
      // Empty saves write no draft row, so only the agent row lock orders them (no other row conflict does).
      const saves = Array.from({ length: 12 }, (_, i) => savePromptConfig(deps, actor, a.id, { sections: [], label: `save ${i}` }));
      const results = await Promise.all(saves);
      const numbers = results
        .map((r) => `${r.version.versionMajor}.${r.version.versionMinor}`)
        .sort((x, y) => Number(x.split('.')[1]) - Number(y.split('.')[1]));
      expect(numbers).toEqual(Array.from({ length: 12 }, (_, i) => `1.${i}`));
      const { items, total } = await repos.prompts.listVersions(a.id, 200);
      expect(total).toBe(12);
      expect(items.map((v) => v.versionMinor)).toEqual(Array.from({ length: 12 }, (_, i) => 11 - i));
    });

    it('serialises concurrent updates of one agent into consecutive agent versions', async () => {
      const a = await newAgent();
      await Promise.all(Array.from({ length: 8 }, (_, i) => updateAgent(deps, actor, a.id, { description: `d${i}` })));
      const { items } = await repos.agentVersions.list(a.id, { limit: 50, offset: 0 });
      expect(items.map((v) => v.version)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1]);
    });
  });
}
