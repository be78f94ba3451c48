import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { requireOrgPermission } from '../identity/policy';
import type { ApiKeyPrincipal } from '../identity/token-claims';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Store } from '../ports/store';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import { API_KEY_SCOPES, type ApiKey, type ApiKeyScope } from './api-key';

export interface ApiKeyDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
}

export interface ApiKeyView {
  id: string;
  name: string;
  scopes: ApiKeyScope[];
  prefix: string;
  createdAt: string;
  lastUsedAt: string | null;
}

export const KEY_PREFIX = 'ap_live_';
const view = (k: ApiKey): ApiKeyView => ({
  id: k.id,
  name: k.name,
  scopes: k.scopes,
  prefix: k.prefix,
  createdAt: k.createdAt,
  lastUsedAt: k.lastUsedAt,
});

/** The secret is shown once; only its hash is stored. */
export async function createApiKey(deps: ApiKeyDeps, actor: Actor, input: { name: string; scopes: string[] }) {
  const organizationId = requireOrgPermission(actor, 'api_keys.manage');
  const name = input.name.trim();
  if (!name) throw new DomainError('VALIDATION', 'name must not be blank');
  const unknown = input.scopes.filter((s) => !(API_KEY_SCOPES as readonly string[]).includes(s));
  if (unknown.length) throw new DomainError('VALIDATION', `Unknown scope(s): ${unknown.join(', ')}; allowed: ${API_KEY_SCOPES.join(', ')}`);
  const key = `${KEY_PREFIX}${deps.ids.secret(32)}`;
  const record: ApiKey = {
    id: deps.ids.uuid(),
    organizationId,
    name,
    scopes: [...new Set(input.scopes)] as ApiKeyScope[],
    prefix: key.slice(0, KEY_PREFIX.length + 6),
    secretHash: sha256Hex(key),
    createdBy: actor.userId,
    createdAt: deps.clock.now().toISOString(),
    lastUsedAt: null,
    revokedAt: null,
  };
  await deps.store.transaction(async (repos) => {
    await repos.apiKeys.create(record);
    await audit(deps, repos, actor.userId, organizationId, 'api_key.create', ['api_key', record.id], { name, scopes: record.scopes });
  });
  return { apiKey: view(record), key };
}

export async function listApiKeys(deps: ApiKeyDeps, actor: Actor) {
  const organizationId = requireOrgPermission(actor, 'api_keys.manage');
  return (await deps.store.repos.apiKeys.listForOrganization(organizationId)).map(view);
}

export async function revokeApiKey(deps: ApiKeyDeps, actor: Actor, id: string) {
  const organizationId = requireOrgPermission(actor, 'api_keys.manage');
  await deps.store.transaction(async (repos) => {
    if (!(await repos.apiKeys.revoke(organizationId, id, deps.clock.now().toISOString())))
      throw new DomainError('NOT_FOUND', 'API key not found');
    await audit(deps, repos, actor.userId, organizationId, 'api_key.revoke', ['api_key', id]);
  });
}

/** Used by the gateway on every /v1 request: unknown and revoked keys are refused. */
export async function verifyApiKey(deps: ApiKeyDeps, rawKey: string): Promise<ApiKeyPrincipal | null> {
  if (!rawKey.startsWith(KEY_PREFIX)) return null;
  const key = await deps.store.repos.apiKeys.findBySecretHash(sha256Hex(rawKey));
  if (!key || key.revokedAt) return null;
  const now = deps.clock.now();
  // lastUsedAt is advisory; refresh it at most once a minute to keep the hot path read-only.
  if (!key.lastUsedAt || now.getTime() - Date.parse(key.lastUsedAt) > 60_000)
    await deps.store.repos.apiKeys.touch(key.id, now.toISOString());
  return { keyId: key.id, organizationId: key.organizationId, scopes: key.scopes };
}
