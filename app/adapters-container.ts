/**
 * The adapters container: every port's DI token bound to a lazy singleton. Configurable ports come from
 * their registries (app/ports); the others have one adapter. Tests and benchmarks replace a port by binding
 * its token to their own value, the same way for every port.
 */
import 'reflect-metadata';

import { readFileSync } from 'node:fs';

import { Container } from 'inversify';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { Argon2idPasswordHasher } from '../adapters/crypto/argon2id.password-hasher';
import { ExternalIssuerTokenVerifier } from '../adapters/crypto/external-issuer.token-verifier';
import { Hs256TokenSigner } from '../adapters/crypto/hs256.token-signer';
import { CheerioHtmlReader } from '../adapters/documents/html.reader';
import { MultiFormatDocumentLoader } from '../adapters/documents/multi-format.document-loader';
import { PooledDocumentLoader } from '../adapters/documents/pooled.document-loader';
import type { AdapterContext } from '../adapters/kit/adapter-definition';
import { InProcessTickLeadership } from '../adapters/memory/in-process.tick-leadership';
import { OpenIdClientOidc } from '../adapters/openid-client/openid-client.oidc-client';
import { OpenRouterModelListing } from '../adapters/openrouter/openrouter.model-listing';
import { SsrfGuardedFetcher } from '../adapters/outbound/ssrf-guarded.fetcher';
import { AdvisoryLockTickLeadership } from '../adapters/postgres/advisory.tick-leadership';
import { IdentityCache } from '../adapters/postgres/identity-cache';
import { KnexStore } from '../adapters/postgres/knex-store';
import { PostgresIdempotencyStore } from '../adapters/postgres/postgres.idempotency-store';
import { CryptoIdGenerator } from '../adapters/system/crypto.id-generator';
import { SystemClock } from '../adapters/system/system.clock';
import { ZxcvbnCommonPasswordList } from '../adapters/zxcvbn/zxcvbn.common-password-list';
import { graphSearchOver } from '../core/graph/graph-query';
import { offlineGraphExtractor } from '../core/graph/offline-extractor';
import { EXTERNAL_TOKEN_VERIFIER } from '../core/identity/external-token';
import { GOOGLE_RELYING_PARTY, googleRelyingParty } from '../core/identity/google-sign-in';
import { PASSWORD_HASHER } from '../core/identity/password-hasher';
import { OIDC_CLIENT } from '../core/identity/sso/oidc-client';
import { TOKEN_SIGNER } from '../core/identity/token-claims';
import { MODEL_LISTING_SOURCE } from '../core/models/model';
import { CLOCK, type Clock } from '../core/ports/clock';
import { COMMON_PASSWORD_LIST } from '../core/ports/common-password-list';
import { DOCUMENT_LOADER } from '../core/ports/document-loader';
import { GRAPH_EXTRACTOR } from '../core/ports/graph-extractor';
import { GRAPH_SEARCH } from '../core/ports/graph-search';
import { GRAPH_STORE, type GraphStore } from '../core/ports/graph-store';
import { HEAVY_WORK, type HeavyWork } from '../core/ports/heavy-work';
import { HTML_READER } from '../core/ports/html-reader';
import { ID_GENERATOR } from '../core/ports/id-generator';
import { IDEMPOTENCY_STORE } from '../core/ports/idempotency-store';
import { IMAGE_DESCRIBER, type ImageDescriber, TRANSCRIBER, type Transcriber } from '../core/ports/media-understanding';
import { OUTBOUND_FETCHER } from '../core/ports/outbound-fetcher';
import { STORE } from '../core/ports/store';
import { TICK_LEADERSHIP } from '../core/ports/tick-leadership';
import { platformPorts } from './ports';

/**
 * The identity cache is on when every process that writes identity data hears the invalidations: one
 * process (`start`), or split roles sharing the RabbitMQ event bus. A role without it reads the database.
 */
function identityCacheFor(config: PlatformConfig): IdentityCache | undefined {
  const ttlMs = Number(config.settings.IDENTITY_CACHE_TTL_MS ?? 0);
  const heard = config.role === 'start' || Boolean(config.settings.RABBITMQ_URL);
  return ttlMs > 0 && heard ? new IdentityCache({ ttlMs }) : undefined;
}

/** The SSRF-guarded fetcher of OpenID Connect sign-in: the outbound guard plus the internal hosts SSO_ALLOWED_HOSTS names. */
export function identityProviderFetcher(config: Pick<PlatformConfig, 'outboundAllow' | 'ssoAllowedHosts' | 'outboundCaFile'>) {
  return new SsrfGuardedFetcher({
    allow: config.outboundAllow,
    allowHosts: config.ssoAllowedHosts,
    extraCa: config.outboundCaFile ? [readFileSync(config.outboundCaFile, 'utf8')] : undefined,
  });
}

/** A token bound to a fixed value instead of its configured adapter. */
export type Binding = readonly [token: symbol, value: unknown];

export function createAdaptersContainer(config: PlatformConfig, context: AdapterContext, replacements: readonly Binding[]): Container {
  const c = new Container();
  c.bind(CLOCK).toConstantValue(new SystemClock());
  c.bind(ID_GENERATOR).toConstantValue(new CryptoIdGenerator());
  c.bind(STORE).toConstantValue(
    new KnexStore(context.db.knex, { identityCache: identityCacheFor(config), cursors: context.db.kind === 'postgres' }),
  );
  // Idempotency-Key claims and answers, on the relational database every api replica shares.
  c.bind(IDEMPOTENCY_STORE).toConstantValue(new PostgresIdempotencyStore(context.db.knex));
  // Periodic ticks of the worker role run on one worker at a time: a server's advisory locks, or in this process
  // on the embedded store (which belongs to one process). It follows the database, not a setting of its own.
  c.bind(TICK_LEADERSHIP)
    .toDynamicValue(() =>
      context.db.kind === 'postgres' ? new AdvisoryLockTickLeadership(context.db.knex, context.log) : new InProcessTickLeadership(),
    )
    .inSingletonScope();
  c.bind(TOKEN_SIGNER)
    .toDynamicValue((ctx) => new Hs256TokenSigner({ secret: config.secrets.jwt, clock: ctx.get<Clock>(CLOCK) }))
    .inSingletonScope();
  c.bind(PASSWORD_HASHER).toConstantValue(new Argon2idPasswordHasher());
  c.bind(GOOGLE_RELYING_PARTY).toConstantValue(config.google ? googleRelyingParty(config.google) : null);
  // Every request of the identity flow goes through an SSRF-guarded fetcher of its own, the only one that
  // SSO_ALLOWED_HOSTS opens (docs/contracts.md "Single sign-on").
  c.bind(OIDC_CLIENT).toConstantValue(new OpenIdClientOidc({ fetcher: identityProviderFetcher(config) }));
  const externalJwt = config.gateway.externalJwt;
  c.bind(EXTERNAL_TOKEN_VERIFIER)
    .toDynamicValue((ctx) => (externalJwt ? new ExternalIssuerTokenVerifier({ ...externalJwt, clock: ctx.get<Clock>(CLOCK) }) : null))
    .inSingletonScope();
  c.bind(MODEL_LISTING_SOURCE).toConstantValue(config.models.syncUrl ? new OpenRouterModelListing({ url: config.models.syncUrl }) : null);
  c.bind(OUTBOUND_FETCHER).toConstantValue(
    new SsrfGuardedFetcher({
      allow: config.outboundAllow,
      extraCa: config.outboundCaFile ? [readFileSync(config.outboundCaFile, 'utf8')] : undefined,
    }),
  );
  c.bind(HTML_READER).toConstantValue(new CheerioHtmlReader());
  c.bind(COMMON_PASSWORD_LIST)
    .toDynamicValue(() => new ZxcvbnCommonPasswordList(config.security.password.commonListSize))
    .inSingletonScope();
  // The offline extractor: deterministic, no network (a model-backed extractor is future work).
  c.bind(GRAPH_EXTRACTOR).toConstantValue(offlineGraphExtractor);
  // Entity search and graph discovery over whichever graph store GRAPH_STORE selects.
  c.bind(GRAPH_SEARCH)
    .toDynamicValue(async (ctx) => graphSearchOver(await ctx.getAsync<GraphStore>(GRAPH_STORE)))
    .inSingletonScope();
  for (const port of platformPorts) port.bind(c, config.settings, context);
  // Files are parsed in the heavy-work pool; images and media are described and transcribed by whatever those
  // two ports resolve to.
  c.bind(DOCUMENT_LOADER)
    .toDynamicValue(async (ctx) => {
      const transcriber = await ctx.getAsync<Transcriber | null>(TRANSCRIBER);
      const imageDescriber = await ctx.getAsync<ImageDescriber | null>(IMAGE_DESCRIBER);
      const local = new MultiFormatDocumentLoader({ transcriber: transcriber ?? undefined, imageDescriber: imageDescriber ?? undefined });
      return new PooledDocumentLoader(await ctx.getAsync<HeavyWork>(HEAVY_WORK), local);
    })
    .inSingletonScope();
  for (const [token, value] of replacements) c.rebindSync(token).toConstantValue(value);
  return c;
}
