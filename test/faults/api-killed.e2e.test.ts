/**
 * docs/contracts.md "Delivery guarantees": the api process SIGKILLed while chats are in flight, then started again, in the
 * production shape (test/support/fault-stack.ts). Clients do what a client should: each turn carries an
 * Idempotency-Key and is sent again with the same key after a 502, a 503, a 409 idempotency_key_in_use or a
 * dropped connection, until it gets its answer. Before the fixes a rolling kill saved a chat twice and billed it
 * twice while the client saw one answer (the gateway re-sent a body the backend had committed), and a retry that
 * took over the dead api's idempotency claim ran the turn again. Now no turn is saved twice, an answered turn is the
 * one conversation it names, every conversation has its two messages and is billed once; a turn whose request died
 * with the api is answered 409 idempotency_answer_unavailable and left for the client to look up.
 */
import { randomUUID } from 'node:crypto';

import { pgvectorOnServer } from '../support/databases';
import { createTenants, manualText, type Tenant, uploadText, waitForDrain } from '../support/delivery-invariants';
import { type FaultStack, startFaultStack } from '../support/fault-stack';

const maybe = pgvectorOnServer ? describe : describe.skip;
const TURNS = 24;
const RETRYABLE = new Set([409, 429, 502, 503]);

maybe('the api SIGKILLed while chats are in flight', () => {
  let stack: FaultStack;
  let tenant: Tenant;
  let agentId: string;

  beforeAll(async () => {
    stack = await startFaultStack({ workers: 1, leaseSeconds: 3 });
    [tenant] = await createTenants(stack.gatewayUrl, 1, 'api-killed');
    await uploadText(stack.gatewayUrl, tenant!, 'pump.txt', manualText(1));
    if (!(await waitForDrain(stack.db, 60_000))) throw new Error('the document never finished');
    const res = await fetch(`${stack.gatewayUrl}/api/bots`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant!.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Support', knowledgeBaseIds: [tenant!.knowledgeBaseId], isDraft: false }),
    });
    if (res.status !== 201) throw new Error(`agent: ${res.status} ${await res.text()}`);
    agentId = ((await res.json()) as { bot: { id: string } }).bot.id;
  }, 180_000);
  afterAll(() => stack?.close(), 120_000);

  const question = (i: number) => `Question ${i}: how long does the pump take to prime?`;

  /**
   * One turn, sent again with its key until it is answered, or until the platform says the key's first request may
   * have run without keeping its answer (its api died mid-request): `unknown`, and the client must look.
   */
  async function turn(i: number, seen: number[]): Promise<{ i: number; conversationId: string | null }> {
    const key = randomUUID();
    const until = Date.now() + 150_000;
    for (;;) {
      const answer = await fetch(`${stack.gatewayUrl}/api/bots/${agentId}/chat`, {
        method: 'POST',
        headers: { authorization: `Bearer ${tenant.token}`, 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ message: question(i) }),
      }).then(
        async (r) => ({ code: r.status, body: (await r.json().catch(() => null)) as { conversationId?: string; error?: string } | null }),
        () => ({ code: 0, body: null }),
      );
      seen.push(answer.code);
      if (answer.code === 200) return { i, conversationId: answer.body!.conversationId! };
      if (answer.code === 409 && answer.body?.error === 'idempotency_answer_unavailable') return { i, conversationId: null };
      if (answer.code !== 0 && !RETRYABLE.has(answer.code)) throw new Error(`turn ${i}: ${answer.code}`);
      if (Date.now() > until) throw new Error(`turn ${i} never answered: ${JSON.stringify(seen)}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  }

  it('saves and bills every turn at most once, and every answered turn exactly once, whatever the clients saw', async () => {
    const seen: number[] = [];
    const turns = Array.from({ length: TURNS }, (_, i) => turn(i, seen));
    // The kill lands once a few turns have their answers and the rest are on their way.
    const deadline = Date.now() + 60_000;
    while (seen.filter((s) => s === 200).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await stack.killApi();
    await new Promise((r) => setTimeout(r, 1_000));
    await stack.startApi();
    const outcomes = await Promise.all(turns);

    // The kill was felt: some attempts failed and were sent again.
    expect(seen.filter((s) => s !== 200).length).toBeGreaterThan(0);
    const { rows: saved } = await stack.db.query<{ id: string; question: string; messages: number }>(
      `select c.id,
              (select m.content from messages m where m.conversation_id = c.id and m.role = 'user' limit 1) as question,
              (select count(*)::int from messages m where m.conversation_id = c.id) as messages
       from conversations c where c.agent_id = $1`,
      [agentId],
    );
    for (const { i, conversationId } of outcomes) {
      const mine = saved.filter((c) => c.question === question(i));
      // Never twice; an answered turn is the conversation it was answered with.
      expect(mine.length).toBeLessThanOrEqual(1);
      if (conversationId) expect(mine.map((c) => c.id)).toEqual([conversationId]);
    }
    expect(saved.every((c) => c.messages === 2)).toBe(true);
    const { rows: billed } = await stack.db.query<{ n: number }>(
      "select count(*)::int as n from billing_events where organization_id = $1 and kind = 'chat'",
      [tenant.organizationId],
    );
    expect(billed[0]!.n).toBe(saved.length);
    console.log(
      `api killed: ${outcomes.filter((o) => o.conversationId).length} of ${TURNS} turns answered, ` +
        `${outcomes.filter((o) => !o.conversationId).length} unknown, ${saved.length} saved; statuses seen ${JSON.stringify(
          seen.reduce<Record<number, number>>((n, s) => ({ ...n, [s]: (n[s] ?? 0) + 1 }), {}),
        )}`,
    );
  }, 300_000);
});
