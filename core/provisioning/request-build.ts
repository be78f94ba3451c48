/**
 * `POST /v1/agents:from-url` (spec 4.13): validates and normalises the request, then, in one transaction,
 * honours the Idempotency-Key (same key and body: the same build; same key, another body: 409), answers a
 * handle that has a fresh agent at once (`ready`, no build, no cost), joins the active build of the handle
 * when there is one, or creates the build (job row and build row) and queues it after the commit.
 * Rule for concurrent requests: per organization and normalised handle there is at most one active build;
 * every request for that handle (whatever its key) follows it.
 */
import type { ApiKeyActor } from '../identity/actor';
import { validateModel } from '../models/catalogue';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import type { SourcePlugin } from '../sources/source-plugin';
import { optionalWebhookUrl } from '../webhooks/webhook-url';
import { BUILD_JOB_KIND, BUILD_QUEUE, type BuildMode, type BuildRecord, QUEUED_LABEL } from './build';
import type { ProvisioningDeps } from './provisioning-deps';
import { verifyTurnstile } from './turnstile';

/** Channel platforms detected without a hint; other source types need `sourceType`. */
export const CHANNEL_PLATFORMS = ['youtube', 'instagram'];
export const HINTED_SOURCE_TYPES = ['shopify', 'website'];

export interface FromUrlInput {
  url: string;
  sourceType?: string;
  turnstileToken?: string;
  mode?: BuildMode;
  intent?: string;
  model?: string;
  deliver?: { stream?: boolean; webhookUrl?: string | null };
}

export interface FromUrlResponse {
  buildId: string;
  status: string;
  agentSlug?: string;
  streamUrl: string;
  pollUrl: string;
}

const IDEMPOTENCY_KEY = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const urlsOf = (buildId: string) => ({ streamUrl: `/v1/agents/builds/${buildId}/events`, pollUrl: `/v1/agents/builds/${buildId}` });

function pluginFor(deps: ProvisioningDeps, input: FromUrlInput): SourcePlugin {
  const registry = deps.sources.registry;
  if (input.sourceType) {
    if (!HINTED_SOURCE_TYPES.includes(input.sourceType) || !registry.has(input.sourceType))
      throw new DomainError('VALIDATION', `sourceType must be one of: ${HINTED_SOURCE_TYPES.join(', ')}`);
    return registry.get(input.sourceType);
  }
  // A URL typed without its scheme (`instagram.com/name`) is detected as the https URL plugins normalise it to.
  const typed = input.url.trim();
  const detected = registry.detect(/^[a-z][a-z0-9+.-]*:/i.test(typed) ? typed : `https://${typed}`);
  if (!detected || !CHANNEL_PLATFORMS.includes(detected.type))
    throw new DomainError(
      'UNSUPPORTED_URL',
      'The URL is not a supported channel URL (YouTube or Instagram; shops and websites need sourceType)',
    );
  return detected;
}

export async function requestBuild(
  deps: ProvisioningDeps,
  key: ApiKeyActor,
  input: FromUrlInput,
  idempotencyKey: string | undefined,
): Promise<FromUrlResponse> {
  if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey))
    throw new DomainError('VALIDATION', 'Idempotency-Key must be a UUID');
  const plugin = pluginFor(deps, input);
  await verifyTurnstile(deps.sources.fetcher, deps.settings.turnstile, input.turnstileToken);
  const url = plugin.normalize(input.url.trim());
  const mode: BuildMode = input.mode ?? 'preview';
  if (input.model) {
    const check = await validateModel(deps.catalogue, input.model);
    if (!check.valid)
      throw new DomainError('VALIDATION', `model ${input.model}: ${check.issues.join('; ')}`, { field: 'model', model: input.model });
  }
  const webhookUrl = optionalWebhookUrl(input.deliver?.webhookUrl, 'deliver.webhookUrl');
  const apiKey = await deps.store.repos.apiKeys.findById(key.organizationId, key.keyId);
  if (!apiKey) throw new DomainError('AUTHENTICATION_FAILED', 'The API key no longer exists');
  const handle = `${plugin.type}:${url}`;
  // The bot-check token differs on every submit: it is not part of what makes two requests the same.
  const requestHash = sha256Hex(
    JSON.stringify([url, input.sourceType ?? null, mode, input.intent ?? null, input.model ?? null, webhookUrl, !!input.deliver?.stream]),
  );
  const now = deps.clock.now();
  const at = now.toISOString();
  const build: BuildRecord = {
    id: `bld_${deps.ids.uuid().replace(/-/g, '')}`,
    organizationId: key.organizationId,
    apiKeyId: key.keyId,
    createdBy: apiKey.createdBy,
    handle,
    sourceType: plugin.type,
    url,
    mode,
    intent: input.intent ?? null,
    model: input.model ?? null,
    phase: 'queued',
    status: 'active',
    state: {},
    agentId: null,
    knowledgeBaseId: null,
    agentSlug: null,
    runs: 0,
    leaseUntil: null,
    createdAt: at,
    updatedAt: at,
    finishedAt: null,
  };

  const outcome = await deps.store.transaction(async (repos) => {
    const builds = repos.provisioningBuilds;
    if (idempotencyKey) {
      const bound = await builds.bindIdempotencyKey(
        { organizationId: key.organizationId, key: idempotencyKey.toLowerCase(), requestHash, buildId: build.id },
        at,
      );
      if (!bound.created) {
        if (bound.record.requestHash !== requestHash)
          throw new DomainError('CONFLICT', 'This Idempotency-Key was already used with a different request body', {
            code: 'idempotency_key_reused',
          });
        return { buildId: bound.record.buildId, created: false };
      }
    }
    const rebind = (buildId: string) =>
      idempotencyKey ? builds.rebindIdempotencyKey(key.organizationId, idempotencyKey.toLowerCase(), buildId) : Promise.resolve();
    const fresh = await builds.latestReady(key.organizationId, handle, new Date(now.getTime() - deps.settings.freshForMs).toISOString());
    if (fresh?.agentId) {
      const agent = await repos.agents.findById(key.organizationId, fresh.agentId);
      if (agent?.status === 'published' && agent.slug) {
        await rebind(fresh.id);
        return { buildId: fresh.id, created: false };
      }
    }
    const inserted = await builds.insertActive(build);
    if (!inserted.created) {
      await rebind(inserted.build.id);
      return { buildId: inserted.build.id, created: false };
    }
    await deps.jobs.start({
      id: build.id,
      organizationId: key.organizationId,
      kind: BUILD_JOB_KIND,
      step: 'queued',
      stepLabel: QUEUED_LABEL,
      reference: { buildId: build.id, handle },
      webhookUrl,
      createdBy: apiKey.createdBy,
    });
    return { buildId: build.id, created: true };
  });
  if (outcome.created) await deps.queue.enqueue(BUILD_QUEUE, { buildId: outcome.buildId }, { jobId: outcome.buildId });
  return responseFor(deps, outcome.buildId);
}

/** The 202 body of a build: its current status, and the slug once ready. */
export async function responseFor(deps: Pick<ProvisioningDeps, 'store'>, buildId: string): Promise<FromUrlResponse> {
  const [build, job] = await Promise.all([deps.store.repos.provisioningBuilds.find(buildId), deps.store.repos.jobs.find(buildId)]);
  const status = job?.status === 'completed' ? 'ready' : job?.status === 'failed' ? 'failed' : ((job?.step as string | null) ?? 'queued');
  return {
    buildId,
    status,
    ...(status === 'ready' && build?.agentSlug ? { agentSlug: build.agentSlug } : {}),
    ...urlsOf(buildId),
  };
}
