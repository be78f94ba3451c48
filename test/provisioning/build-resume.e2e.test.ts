/**
 * A build whose worker died mid-build (spec 3.3: it resumes or fails cleanly, never hangs). The dead worker is
 * played by taking the build's lease and moving it into `scraping` without running it, as a worker killed
 * right after it claimed the build would leave it. Once the lease expires, the worker role's sweep queues the
 * build again and a live worker resumes it from the phase it was in, to ready. Runs on the in-process queue,
 * and on RabbitMQ with TEST_REAL_SERVICES=1.
 */
import { AMQP_URL, deleteTopology, uniquePrefix } from '../../adapters/rabbitmq/test-fixtures/broker';
import { consumers } from '../../app/workers';
import { BUILD_JOB_KIND, type BuildRecord, PHASES } from '../../core/provisioning/build';
import { cookingChannel } from '../../plugins/sources/youtube/test-fixtures/channel';
import { describeWithRealServices } from '../support/databases';
import { type ProvisioningWorld, settled, startProvisioningWorld } from './provisioning-support';

const channel = cookingChannel('resumer', 5, 'UCresumer000000000000000');

async function abandonedBuild(w: ProvisioningWorld): Promise<string> {
  const repos = w.p.store.repos;
  const keyRow = (await repos.apiKeys.listForOrganization(w.owner.orgId))[0];
  const now = new Date();
  const id = `bld_resume${now.getTime()}`;
  const build: BuildRecord = {
    id,
    organizationId: w.owner.orgId,
    apiKeyId: keyRow.id,
    createdBy: w.owner.id,
    handle: `youtube:https://www.youtube.com/@resumer-${now.getTime()}`,
    sourceType: 'youtube',
    url: 'https://www.youtube.com/@resumer',
    mode: 'preview',
    intent: null,
    model: null,
    phase: 'queued',
    status: 'active',
    state: {},
    agentId: null,
    knowledgeBaseId: null,
    agentSlug: null,
    runs: 0,
    leaseUntil: null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    finishedAt: null,
  };
  await repos.provisioningBuilds.insertActive(build);
  const tracker = (await import('../../app/jobs-services')).jobTracker(w.p.infra);
  await tracker.start({ id, organizationId: w.owner.orgId, kind: BUILD_JOB_KIND, step: 'queued', stepLabel: 'Waiting to start' });
  // The "dead worker": holds the lease, entered scraping, then nothing more (never queued, never finished).
  const at = new Date().toISOString();
  await repos.provisioningBuilds.claim(id, at, new Date(Date.now() + 1500).toISOString());
  await repos.provisioningBuilds.update(id, { phase: 'scraping' }, at);
  const scraping = PHASES.find((p) => p.phase === 'scraping')!;
  await tracker.progress(id, { step: 'scraping', stepLabel: scraping.label, progress: scraping.from });
  return id;
}

async function resumes(w: ProvisioningWorld) {
  const id = await abandonedBuild(w);
  const ended = await settled(w, id, 60_000);
  expect(ended).toMatchObject({ status: 'ready', progress: 100, platform: 'youtube', channelTitle: 'Fixture Chef Kitchen' });
  const build = await w.p.store.repos.provisioningBuilds.find(id);
  expect(build).toMatchObject({ status: 'ready', runs: 2 });
  const agent = await w.p.http.get(`/api/public/agents/${ended.agentSlug}`);
  expect(agent.status).toBe(200);
}

describe('a build whose worker died (in-process queue)', () => {
  let w: ProvisioningWorld;
  beforeAll(async () => {
    w = await startProvisioningWorld([channel], { PROVISIONING_LEASE_MS: '1000' });
  });
  afterAll(() => w?.close());

  it('is queued again once its lease expires and resumes from its phase to ready', () => resumes(w));
});

describeWithRealServices('a build whose worker died (RabbitMQ, TEST_REAL_SERVICES=1)', () => {
  const prefix = uniquePrefix('builds');
  let w: ProvisioningWorld;
  beforeAll(async () => {
    w = await startProvisioningWorld([channel], { PROVISIONING_LEASE_MS: '1000', RABBITMQ_URL: AMQP_URL, QUEUE_PREFIX: prefix });
  });
  afterAll(async () => {
    await w?.close();
    const queues = consumers.flatMap((c) => [`${prefix}.${c.queue}`, `${prefix}.${c.queue}.dead`]);
    await deleteTopology(queues, [`${prefix}.events`]);
  });

  it('is queued again on the broker once its lease expires and resumes to ready', async () => {
    expect(w.p.infra.queue.id).toBe('rabbitmq');
    await resumes(w);
  });
});
