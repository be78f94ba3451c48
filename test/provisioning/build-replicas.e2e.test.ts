/**
 * Two api replicas on one store and one RabbitMQ (spec 4.13: build events fan out across api replicas through
 * the event-bus port). Replica A takes the from-url request; real EventSource clients on A's and B's gateways
 * follow the build, one of them joining B part-way. Both replicas run workers on the shared queue, so either may
 * run the build; every client sees the same events to ready.
 * Real broker only (TEST_REAL_SERVICES=1).
 */
import { AMQP_URL, deleteTopology, uniquePrefix } from '../../adapters/rabbitmq/test-fixtures/broker';
import { consumers } from '../../app/workers';
import { cookingChannel } from '../../plugins/sources/youtube/test-fixtures/channel';
import { type ReceivedEvent, watchJob } from '../jobs/job-clients';
import { waitFor } from '../public-chat/public-support';
import { describeWithRealServices } from '../support/databases';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { fromUrl, type ProvisioningWorld, startProvisioningWorld } from './provisioning-support';

const channel = cookingChannel('twinreplica', 8, 'UCtwinreplica00000000000');

describeWithRealServices('build events across two api replicas on RabbitMQ (TEST_REAL_SERVICES=1)', () => {
  const prefix = uniquePrefix('replicas');
  let a: ProvisioningWorld;
  let b: TestPlatform;

  beforeAll(async () => {
    const env = { RABBITMQ_URL: AMQP_URL, QUEUE_PREFIX: prefix };
    a = await startProvisioningWorld([channel], env);
    // Replica B: its own gateway, api and worker, on A's database and the same broker prefix and upstream fakes.
    b = await startTestPlatform(a.env, { database: a.p.infra.db });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    const queues = consumers.flatMap((c) => [`${prefix}.${c.queue}`, `${prefix}.${c.queue}.dead`]);
    await deleteTopology(queues, [`${prefix}.events`]);
  });

  const summary = (events: ReceivedEvent[]) => events.map((e) => `${e.type}:${e.data.step}:${e.data.progress}`);

  it('streams the same build to clients of both replicas, one of them joining part-way', async () => {
    expect([a.p.infra.bus.id, b.infra.bus.id]).toEqual(['rabbitmq', 'rabbitmq']);
    const r = await fromUrl(a, { url: 'https://www.youtube.com/@twinreplica', deliver: { stream: true } });
    expect(r.status).toBe(202);
    const { buildId, streamUrl } = r.body;

    const onA = watchJob(a.p, a.key, buildId, streamUrl);
    const onB = watchJob(b, a.key, buildId, streamUrl);
    // under way, and A has seen an event after its first: a client joining now cannot start where A started
    // (A itself may have connected after the build left the queue)
    await waitFor(async () => onA.events.length >= 2 && onA.events.some((e) => e.data.step !== 'queued'), 'the build under way');
    const lateOnB = watchJob(b, a.key, buildId, streamUrl);

    const terminal = (events: ReceivedEvent[]) => events.some((e) => e.type !== 'progress');
    for (const [name, s] of Object.entries({ onA, onB, lateOnB }))
      await waitFor(async () => terminal(s.events), `the terminal event on ${name}`, 90_000);
    for (const s of [onA, onB, lateOnB]) s.source.close();

    expect(onA.events.at(-1)).toMatchObject({ type: 'done', data: { status: 'ready', progress: 100 } });
    expect(onA.events.length).toBeGreaterThan(3);
    // Whichever replica a client used, it gets the state current when it connected, then every later event:
    // those published by the worker that ran the build reach the other replica's clients through the broker.
    const fromJoin = (s: { events: ReceivedEvent[] }) => {
      const joinedAt = onA.events.findIndex((e) => e.id === s.events[0].id);
      expect(joinedAt).toBeGreaterThanOrEqual(0);
      return { joinedAt, expected: summary(onA.events.slice(joinedAt)) };
    };
    for (const s of [onB, lateOnB]) expect(summary(s.events)).toEqual(fromJoin(s).expected);
    expect(fromJoin(lateOnB).joinedAt).toBeGreaterThan(0);
    expect(lateOnB.events.length).toBeGreaterThan(2);
    expect((await a.p.http.get(`/api/public/agents/${onA.events.at(-1)!.data.agentSlug}`)).status).toBe(200);
  });
});
