// Pact's native core reports anonymous usage events unless PACT_DO_NOT_TRACK=true is in the real process
// environment (jest sandboxes process.env, so it cannot be set from here): the jest run must set it (package.json).

// The verifier's proxy imports https-proxy-agent, an ES module jest cannot require; it is only used when an
// HTTP(S)_PROXY is set, which this test clears (the provider is on loopback).
jest.mock('https-proxy-agent', () => ({
  HttpsProxyAgent: class {
    constructor() {
      throw new Error('https-proxy-agent is stubbed in this test; unset HTTP(S)_PROXY');
    }
  },
}));

import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { Verifier } from '@pact-foundation/pact/src/dsl/verifier';

import { loadConfig } from '../../app/configuration';
import { createContainer } from '../../app/container';
import { buildInfrastructure, type Infrastructure } from '../../app/infrastructure';
import { startApi } from '../../app/roles';
import { EMPTY_BODY_DIGEST, IdentityHeader, sha256Hex, signIdentity } from '../../core/identity/gateway-signature';
import { isOrgRole, type OrgRole } from '../../core/identity/roles';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { BOOT_TIMEOUT_MS, cheapPasswords, TEST_INTERNAL_SECRET, TEST_JWT_SECRET } from '../support/platform';

/**
 * Provider side of the gateway → backend contract. The consumer test (gateway/gateway.pact.test.ts, consumer
 * "agent-platform-gateway") writes contracts/pacts/*.json; here the real backend app ("agent-platform-api",
 * in-memory store) must answer every recorded interaction.
 */
const PROVIDER = 'agent-platform-api';
const PACT_DIR = resolve(__dirname, '../../contracts/pacts');

interface PactInteraction {
  description: string;
  providerStates?: { name: string }[];
  request: { method: string; path: string; headers?: Record<string, string>; body?: unknown };
}

const pactFiles = existsSync(PACT_DIR)
  ? readdirSync(PACT_DIR)
      .filter((f) => f.endsWith('.json'))
      .map((f) => join(PACT_DIR, f))
      .filter((f) => (JSON.parse(readFileSync(f, 'utf8')) as { provider: { name: string } }).provider.name === PROVIDER)
  : [];
const interactions = pactFiles.flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { interactions: PactInteraction[] }).interactions);

let infra: Infrastructure;
let api: Awaited<ReturnType<typeof startApi>>;
let dataDir: string;
const savedProxy = { HTTP_PROXY: process.env.HTTP_PROXY, HTTPS_PROXY: process.env.HTTPS_PROXY };

beforeAll(async () => {
  delete process.env.HTTP_PROXY;
  delete process.env.HTTPS_PROXY;
  dataDir = mkdtempSync(join(tmpdir(), 'ap-pact-'));
  const config = loadConfig('start', {
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    INTERNAL_SECRET: TEST_INTERNAL_SECRET,
  });
  infra = await buildInfrastructure(config, () => undefined, { memoryDatabase: true, passwords: cheapPasswords() });
  api = await startApi(createContainer(infra), 0, '127.0.0.1');
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await api?.close();
  await infra?.close();
  rmSync(dataDir, { recursive: true, force: true });
  Object.assign(process.env, Object.fromEntries(Object.entries(savedProxy).filter(([, v]) => v !== undefined)));
}, BOOT_TIMEOUT_MS);

/** "a user with an organization": the user and organization the recorded identity headers name. */
async function aUserWithAnOrganization() {
  const examples = interactions.filter((i) => i.providerStates?.some((s) => s.name === 'a user with an organization'));
  const now = new Date().toISOString();
  for (const { request } of examples) {
    const h = request.headers ?? {};
    const userId = h[IdentityHeader.userId];
    const orgId = h[IdentityHeader.organizationId];
    if (!userId || !orgId) throw new Error('the state "a user with an organization" needs user-id and organization-id headers');
    const role: OrgRole = isOrgRole(h[IdentityHeader.orgRole]) ? (h[IdentityHeader.orgRole] as OrgRole) : 'owner';
    await infra.store.transaction(async (tx) => {
      if (!(await tx.users.findById(userId))) {
        await tx.users.create({
          id: userId,
          email: h[IdentityHeader.email] ?? 'ada@example.com',
          displayName: 'Ada Lovelace',
          passwordHash: null,
          emailVerified: true,
          accountType: 'password',
          platformRole: h[IdentityHeader.platformRole] === 'superadmin' ? 'superadmin' : 'user',
          status: 'active',
          googleSubject: null,
          createdAt: now,
          updatedAt: now,
        });
      }
      if (!(await tx.organizations.findById(orgId))) {
        await tx.organizations.create({
          id: orgId,
          name: 'Acme',
          slug: `acme-${orgId.slice(0, 8)}`,
          plan: { seats: 5, agents: 25, knowledgeBases: 25 },
          createdAt: now,
        });
        await tx.wallets.create({ organizationId: orgId, balanceUsd: 5, updatedAt: now });
      }
      if (!(await tx.memberships.find(orgId, userId))) await tx.memberships.add({ organizationId: orgId, userId, role, createdAt: now });
    });
  }
  return undefined;
}

/**
 * The recorded timestamp, nonce and signature are examples only: sign the recorded identity afresh, as the
 * gateway would, over the digest of the body the verifier sends (the recorded JSON body, compact).
 */
function resign(req: IncomingMessage, _res: unknown, next: () => void) {
  const h = req.headers;
  const one = (name: string) => {
    const v = h[name];
    return typeof v === 'string' && v !== '' ? v : null;
  };
  const identity: ForwardedIdentity = {
    userId: one(IdentityHeader.userId),
    organizationId: one(IdentityHeader.organizationId),
    email: one(IdentityHeader.email),
    platformRole: one(IdentityHeader.platformRole) as ForwardedIdentity['platformRole'],
    orgRole: one(IdentityHeader.orgRole) as ForwardedIdentity['orgRole'],
    apiKeyId: one(IdentityHeader.apiKeyId),
    apiKeyScopes: one(IdentityHeader.apiKeyScopes)?.split(',') ?? [],
    clientIp: one(IdentityHeader.clientIp) ?? '127.0.0.1',
    tokenVersion: one(IdentityHeader.tokenVersion) === null ? null : Number(one(IdentityHeader.tokenVersion)),
  };
  const recorded = interactions.find((i) => i.request.method === req.method && i.request.path === req.url);
  const bodyDigest = recorded?.request.body === undefined ? EMPTY_BODY_DIGEST : sha256Hex(JSON.stringify(recorded.request.body));
  const nonce = randomBytes(16).toString('hex');
  Object.assign(
    h,
    signIdentity(TEST_INTERNAL_SECRET, identity, {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      bodyDigest,
      nowMs: Date.now(),
      nonce,
    }),
  );
  next();
}

describe(`Pact provider verification: ${PROVIDER}`, () => {
  it('has the pact the gateway (consumer) recorded', () => {
    if (!pactFiles.length) {
      throw new Error(
        `No pact for provider "${PROVIDER}" in ${PACT_DIR}. It is written by the consumer test: npm run jest -- gateway/gateway.pact.test.ts`,
      );
    }
    expect(interactions.length).toBeGreaterThan(0);
  });

  it(
    'honours every interaction of the pact against the real backend app',
    async () => {
      if (!pactFiles.length) return; // reported by the test above
      const output = await new Verifier({
        provider: PROVIDER,
        providerBaseUrl: `http://127.0.0.1:${api.address.port}`,
        pactUrls: pactFiles,
        stateHandlers: { 'a user with an organization': aUserWithAnOrganization },
        requestFilter: resign as never,
        logLevel: 'warn',
      }).verifyProvider();
      expect(output).toBeDefined();
    },
    BOOT_TIMEOUT_MS,
  );

  it('control: without the re-signing filter the backend refuses the recorded (stale) signature', async () => {
    const interaction = interactions[0];
    if (!interaction) return;
    const r = await fetch(`http://127.0.0.1:${api.address.port}/api/auth/me`, { headers: interaction.request.headers });
    expect(r.status).toBe(401);
  });
});
