/**
 * Channel replies are an outbox (docs/contracts.md "Delivery guarantees"), shaped like the webhook sender
 * (core/webhooks/webhooks.ts). An agent's answer to an inbound message becomes a delivery row, written in the
 * transaction that stores the answer and keyed on the inbound provider message id (a redelivered inbound message
 * finds it: no second answer, no second delivery); an operator's message becomes one right after it is stored.
 * The row keeps exactly what is sent (recipient, text, threading). Once it commits, its first attempt goes on
 * `channels.outbound`; the worker takes the attempt (compare-and-set on `attempts`, so a duplicated queue message
 * never sends twice) and sends through the channel plugin. The provider's acceptance marks it `sent`; a failure
 * records `lastError` and queues the next attempt with exponential backoff (CHANNEL_RETRY_BACKOFF_MS), 5 attempts
 * in all, then `failed`. A relay re-queues pending deliveries whose queue message was lost. Nothing of this runs on
 * the request path of the inbound webhook.
 */
import type { Actor } from '../identity/actor';
import type { Job, JobQueue } from '../ports/job-queue';
import type { Repositories } from '../ports/repositories';
import type { Channel } from './channel';
import type { ChannelDelivery, ChannelDeliveryPayload, ChannelDeliveryView } from './channel-delivery';
import {
  CHANNEL_OUTBOUND_QUEUE,
  type ChannelDeliveryJob,
  type ChannelDeliverySettings,
  type ChannelDeps,
  type OutboundJob,
} from './channel-deps';
import type { ChannelPlugin } from './channel-plugin';
import { channelContext, loadChannel } from './channels';

type ScheduleDeps = Pick<ChannelDeps, 'store' | 'clock' | 'ids' | 'queue' | 'log'>;

export interface ChannelDeliveryInput {
  organizationId: string;
  channelId: string;
  agentId: string;
  conversationId: string;
  /** The inbound provider message id answered (one delivery per id and channel); null for operator messages. */
  inboundMessageId: string | null;
  /** The stored message carried. */
  messageId: string | null;
  payload: ChannelDeliveryPayload;
}

/** Wait before the attempt after `failedAttempt`. */
export const channelBackoffMs = (settings: Pick<ChannelDeliverySettings, 'backoffMs'>, failedAttempt: number) =>
  Math.round(settings.backoffMs * 2 ** (failedAttempt - 1));

/** One message per attempt number: copies of it are harmless (the attempt is claimed once). */
export function queueChannelAttempt(
  queue: JobQueue,
  delivery: Pick<ChannelDelivery, 'organizationId' | 'id'>,
  attempt: number,
  delayMs = 0,
): Promise<string> {
  return queue.enqueue<ChannelDeliveryJob>(
    CHANNEL_OUTBOUND_QUEUE,
    { organizationId: delivery.organizationId, deliveryId: delivery.id, attempt },
    { jobId: `channel-delivery-${delivery.id}-a${attempt}`, ...(delayMs > 0 ? { delayMs } : {}) },
  );
}

/**
 * Writes the delivery with `repos` (inside the caller's transaction, next to the message it carries) and queues its
 * first attempt once that transaction commits. A failed enqueue is logged: the row is the truth, and the relay
 * queues it later. Null when the channel has a delivery for this inbound message id already.
 */
export async function recordChannelDelivery(
  deps: ScheduleDeps,
  repos: Repositories,
  input: ChannelDeliveryInput,
): Promise<ChannelDelivery | null> {
  const now = deps.clock.now().toISOString();
  const delivery: ChannelDelivery = {
    id: deps.ids.uuid(),
    ...input,
    externalId: null,
    status: 'pending',
    attempts: 0,
    lastError: null,
    nextAttemptAt: now,
    createdAt: now,
    updatedAt: now,
    sentAt: null,
  };
  if (!(await repos.channelDeliveries.create(delivery))) return null;
  deps.store.afterCommit(() =>
    queueChannelAttempt(deps.queue, delivery, 1).catch((e) =>
      deps.log('warn', `channel delivery ${delivery.id}: first attempt not queued (the relay queues it)`, e),
    ),
  );
  return delivery;
}

/**
 * A redelivered inbound message whose answer is stored: the delivery's due attempt is queued again (at once, or
 * when its backoff ends), nothing else. A settled delivery, or one whose attempt is under way, is left alone (a
 * worker that died mid-attempt is the relay's). True when an attempt was queued.
 */
export async function resumeChannelDelivery(deps: ScheduleDeps, delivery: ChannelDelivery): Promise<boolean> {
  if (delivery.status !== 'pending' || !delivery.nextAttemptAt) return false;
  const delayMs = Math.max(0, Date.parse(delivery.nextAttemptAt) - deps.clock.now().getTime());
  await queueChannelAttempt(deps.queue, delivery, delivery.attempts + 1, delayMs);
  return true;
}

/**
 * An operator's message of a channel conversation, already stored: recorded as a delivery to the conversation's
 * contact (its identity on that channel) in a transaction of its own, its first attempt queued after commit. Null
 * when there is nobody to send it to (inactive channel, no sending plugin, no contact identity on the channel).
 */
export async function scheduleOperatorMessage(deps: ChannelDeps, input: OutboundJob): Promise<ChannelDelivery | null> {
  const repos = deps.store.repos;
  const channel = await repos.channels.findById(input.channelId);
  if (!channel?.isActive || !deps.registry.has(channel.type)) return null;
  const plugin = deps.registry.get(channel.type);
  if (!plugin.send) return null;
  const conversation = await repos.conversations.findById(channel.organizationId, input.conversationId);
  if (!conversation?.contactId) return null;
  const identities = await repos.contacts.identities(channel.organizationId, conversation.contactId);
  const to = identities.find((i) => i.channel === plugin.identityChannel)?.identifier;
  if (!to) return null;
  return deps.store.transaction((tx) =>
    recordChannelDelivery(deps, tx, {
      organizationId: channel.organizationId,
      channelId: channel.id,
      agentId: channel.agentId,
      conversationId: conversation.id,
      inboundMessageId: null,
      messageId: input.messageId ?? null,
      payload: { to, text: input.text },
    }),
  );
}

export type ChannelDeliveryOutcome = 'sent' | 'retrying' | 'failed' | 'skipped';

/** Why a delivery cannot be sent at all (settled as failed at once), or the channel and its sending plugin. */
async function sender(
  deps: ChannelDeps,
  delivery: ChannelDelivery,
): Promise<{ channel: Channel; plugin: ChannelPlugin; send: NonNullable<ChannelPlugin['send']> } | string> {
  const channel = await deps.store.repos.channels.findById(delivery.channelId);
  if (!channel || channel.organizationId !== delivery.organizationId) return 'The channel was deleted';
  if (!channel.isActive) return 'The channel is inactive';
  if (!deps.registry.has(channel.type)) return `No ${channel.type} channel plugin is installed`;
  const plugin = deps.registry.get(channel.type);
  if (!plugin.send) return `A ${channel.type} channel sends no replies`;
  return { channel, plugin, send: plugin.send };
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, 500) || 'The send failed';

/**
 * One attempt of a delivery (a `channels.outbound` message). `skipped`: the attempt was taken, or the delivery
 * settled, already. Throws only when the store fails before the attempt is taken, so the queue retries the message.
 */
export async function deliverChannelMessage(deps: ChannelDeps, job: Job<ChannelDeliveryJob>): Promise<ChannelDeliveryOutcome> {
  const repo = deps.store.repos.channelDeliveries;
  const delivery = await repo.find(job.payload.organizationId, job.payload.deliveryId);
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  const attempt = job.payload.attempt ?? delivery.attempts + 1;
  const settings = deps.delivery;
  if (attempt !== delivery.attempts + 1 || attempt > settings.maxAttempts) return 'skipped';
  const target = await sender(deps, delivery);
  if (!(await repo.claimAttempt(delivery.organizationId, delivery.id, delivery.attempts, deps.clock.now().toISOString()))) return 'skipped';

  let error: string | null = null;
  let permanent = false;
  let externalId: string | null = null;
  if (typeof target === 'string') {
    error = target;
    permanent = true;
  } else {
    try {
      const sent = await target.send.call(target.plugin, { ...delivery.payload, id: delivery.id }, channelContext(deps, target.channel));
      externalId = sent?.externalId ?? null;
    } catch (e) {
      // A refusal that stays a refusal (the relay is not configured...): no point in retrying.
      permanent = (e as { code?: unknown })?.code === 'VALIDATION';
      error = errorText(e);
    }
  }

  const sent = error === null;
  const settled = sent || permanent || attempt >= settings.maxAttempts;
  const now = deps.clock.now();
  const backoff = channelBackoffMs(settings, attempt);
  const recorded = await repo.recordAttempt(delivery.organizationId, delivery.id, attempt, {
    status: sent ? 'sent' : settled ? 'failed' : 'pending',
    // After a success the last failure stays: with attempts > 1 it tells why the reply was late.
    lastError: sent ? delivery.lastError : error,
    nextAttemptAt: settled ? null : new Date(now.getTime() + backoff).toISOString(),
    externalId,
    updatedAt: now.toISOString(),
    sentAt: sent ? now.toISOString() : null,
  });
  if (!recorded) return 'skipped'; // the relay settled it meanwhile
  if (sent) {
    // Answers to this reply thread into the same conversation (email References).
    if (externalId && typeof target !== 'string')
      await deps.store.repos.channels
        .setInboundConversation(target.channel.id, externalId, delivery.conversationId)
        .catch((e) => deps.log('warn', `channel delivery ${delivery.id}: sent, but its message id was not recorded for threading`, e));
    return 'sent';
  }
  if (!settled) {
    deps.log('info', `channel delivery ${delivery.id}: attempt ${attempt} failed (${error}); retrying in ${backoff} ms`);
    await queueChannelAttempt(deps.queue, delivery, attempt + 1, backoff).catch((e) =>
      deps.log('warn', `channel delivery ${delivery.id}: next attempt not queued (the relay queues it)`, e),
    );
    return 'retrying';
  }
  deps.log('warn', `channel delivery ${delivery.id} failed after ${attempt} attempt(s): ${error}`);
  return 'failed';
}

/**
 * The worker of `channels.outbound`: a delivery attempt, or an operator message queued by a version before the
 * outbox (recorded as a delivery first).
 */
export async function processOutboundJob(deps: ChannelDeps, job: Job<ChannelDeliveryJob | OutboundJob>): Promise<void> {
  const payload = job.payload;
  if ('deliveryId' in payload) await deliverChannelMessage(deps, { ...job, payload });
  else await scheduleOperatorMessage(deps, payload);
}

/**
 * The relay: pending deliveries whose next attempt was due, or that were last touched, longer than `relayAfterMs`
 * ago lost their queue message (the enqueue after commit failed, the embedded queue died with its process, a
 * worker crashed mid-attempt). Each gets its next attempt queued again (marked due now, so the next tick leaves
 * it alone); one whose last attempt was taken but never recorded is settled as failed. Returns how many it handled.
 */
export async function relayStalledChannelDeliveries(
  deps: Pick<ChannelDeps, 'store' | 'clock' | 'queue' | 'delivery' | 'log'>,
  limit = 100,
): Promise<number> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - deps.delivery.relayAfterMs).toISOString();
  const repo = deps.store.repos.channelDeliveries;
  const stalled = await repo.listStalled(before, limit);
  for (const d of stalled) {
    // No next attempt due: an attempt was taken and never recorded (its worker died).
    const interrupted = d.attempts > 0 && d.nextAttemptAt === null;
    const last = d.attempts >= deps.delivery.maxAttempts;
    const moved = await repo.recordAttempt(d.organizationId, d.id, d.attempts, {
      status: last ? 'failed' : 'pending',
      lastError: interrupted ? 'The last attempt was interrupted' : d.lastError,
      nextAttemptAt: last ? null : now.toISOString(),
      externalId: null,
      updatedAt: now.toISOString(),
      sentAt: null,
    });
    if (moved && !last) await queueChannelAttempt(deps.queue, d, d.attempts + 1);
  }
  return stalled.length;
}

export const deliveryView = (d: ChannelDelivery): ChannelDeliveryView => ({
  id: d.id,
  conversationId: d.conversationId,
  status: d.status,
  attempts: d.attempts,
  lastError: d.lastError,
  createdAt: d.createdAt,
  sentAt: d.sentAt,
});

/** `GET /api/bots/:id/channels/:channelId/deliveries`: newest first; edit on the agent; another's channel is a 404. */
export async function listChannelDeliveries(
  deps: ChannelDeps,
  actor: Actor,
  agentId: string,
  channelId: string,
  page: { limit?: number; offset?: number } = {},
) {
  const channel = await loadChannel(deps, actor, agentId, channelId);
  const limit = Math.min(Math.max(Math.trunc(page.limit ?? 50), 1), 200);
  const offset = Math.max(Math.trunc(page.offset ?? 0), 0);
  const deliveries = await deps.store.repos.channelDeliveries.listForChannel(channel.organizationId, channel.id, { limit, offset });
  return { deliveries: deliveries.map(deliveryView) };
}
