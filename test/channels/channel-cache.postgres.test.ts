/**
 * The webhook's in-memory channel cache against a Postgres server (TEST_REAL_SERVICES=1), where a read can run
 * while another connection's transaction is open (on the embedded store it waits for the commit). A webhook
 * reading a channel between an update's statement and its commit sees the old, committed row; the cache must not
 * keep serving it once the update has committed (a rotated app secret, a paused channel).
 */
import { randomUUID } from 'node:crypto';

import type { Database } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { seedOrganization } from '../analytics/seed-analytics';
import { describeWithRealServices, openScratchDatabase } from '../support/databases';

describeWithRealServices('channel cache on a Postgres server', () => {
  let fx: { db: Database; teardown(): Promise<void> };
  let store: KnexStore;
  let organizationId: string;
  const channelId = randomUUID();

  beforeAll(async () => {
    fx = await openScratchDatabase('channel_cache');
    await migrate(fx.db.knex, [relationalMigrations]);
    store = new KnexStore(fx.db.knex, { cursors: true });
    const seeded = await seedOrganization(fx.db.knex, 1);
    organizationId = seeded.organizationId;
    const at = new Date().toISOString();
    await store.repos.channels.create({
      id: channelId,
      organizationId,
      agentId: seeded.agentIds[0],
      type: 'whatsapp_business',
      label: 'Line',
      isActive: true,
      config: { phoneNumberId: '1' },
      secrets: { appSecret: 'old-secret' },
      createdAt: at,
      updatedAt: at,
    });
  }, 120_000);
  afterAll(() => fx?.teardown());

  it('forgets a row cached while the update that changed it was still uncommitted', async () => {
    expect((await store.repos.channels.findForInbound(channelId))?.secrets).toEqual({ appSecret: 'old-secret' });
    // Another request reads meanwhile, outside the transaction (the read is set up here, so it runs in this async
    // context and not in the transaction's): the committed row is still the old one, and it gets cached.
    let release = () => {};
    const readMeanwhile = new Promise<void>((resolve) => (release = resolve)).then(() => store.repos.channels.findForInbound(channelId));
    await store.transaction(async (repos) => {
      await repos.channels.update(organizationId, channelId, { secrets: { appSecret: 'new-secret' }, isActive: false });
      release();
      expect((await readMeanwhile)?.secrets).toEqual({ appSecret: 'old-secret' });
    });
    const after = await store.repos.channels.findForInbound(channelId);
    expect(after?.secrets).toEqual({ appSecret: 'new-secret' });
    expect(after?.isActive).toBe(false);
  });
});
