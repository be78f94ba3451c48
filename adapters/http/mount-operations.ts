import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { type NextFunction, type Request, type RequestHandler, type Response, Router } from 'express';

import type { Operation } from '../../contracts/operation';
import type { Actor } from '../../core/identity/actor';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { DomainError } from '../../core/shared/errors';
import type { HandlerContext, HandlerMap } from './handler';
import { assertNoNul, JSON_CONTENT_TYPE } from './json-body';
import { sendJson } from './json-response';

// Query strings and path parameters are text, so they may coerce ("10" → 10); JSON bodies carry real types
// and must not ({"name":123} is refused, not turned into "123").
const textAjv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false, removeAdditional: false });
const jsonAjv = new Ajv({ allErrors: true, coerceTypes: false, useDefaults: true, strict: false, removeAdditional: false });
addFormats(textAjv);
addFormats(jsonAjv);

function compile(schema: unknown, ajv: Ajv = textAjv): ValidateFunction | null {
  return schema && typeof schema === 'object' ? ajv.compile(schema) : null;
}

/** A JSON operation given a body of another type: 415, not a confusing "body.name is required". */
function assertJsonBody(req: Request, res: Response): void {
  const raw = res.locals.rawBody as Buffer | undefined;
  if (raw && raw.length > 0 && !JSON_CONTENT_TYPE.test(req.headers['content-type'] ?? '')) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body as JSON with "Content-Type: application/json"');
  }
}

function check(validate: ValidateFunction | null, value: unknown, where: string) {
  if (!validate || validate(value)) return;
  const details = (validate.errors ?? []).map((e) => ({
    field: `${where}${e.instancePath.replace(/\//g, '.')}${e.keyword === 'required' ? `.${(e.params as { missingProperty: string }).missingProperty}` : ''}`,
    // An enum error names the allowed values (registered source types, roles...): the caller sees what to send.
    message: `${e.message ?? 'is invalid'}${e.keyword === 'enum' ? ` (${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''}`,
  }));
  const first = details[0];
  throw new DomainError('VALIDATION', first ? `${first.field.replace(/^\./, '')} ${first.message}` : `Invalid ${where}`, details);
}

export interface MountOptions {
  identityOf(req: Request): ForwardedIdentity;
  resolveActor(identity: ForwardedIdentity): Promise<Actor | null>;
}

/** The request path an Express path without parameters matches exactly, or null when it has parameters. */
export function staticPathOf(path: string): string | null {
  if (/(?<!\\):|[*{}()?+]/.test(path)) return null;
  return path.replace(/\\:/g, ':');
}

/** Whether the Express path `pattern` (`:name` segments) matches the request path `path` (escapes aside). */
function mayMatch(pattern: string, path: string): boolean {
  if (/[*{}()?+]/.test(pattern)) return true; // wildcards and optional parts: assume it may
  const want = pattern.split('/');
  const have = path.split('/');
  return want.length === have.length && want.every((w, i) => /^:[A-Za-z0-9_]+$/.test(w) || w.replace(/\\:/g, ':') === have[i]);
}

/**
 * Mounts every operation on a router with its handler. An operation without a handler, or a handler
 * without an operation, fails at boot, so the routes and the OpenAPI document cannot drift apart.
 *
 * Operations without path parameters are also found by an exact method + path lookup in front of the router,
 * which otherwise tries its ~170 routes one regular expression after another (about 2% of the CPU of GET
 * /api/auth/me in a profile, of the 9% its layers take in all). A static path an earlier parameterised route could take is left to the router, so the
 * first route registered still wins; other spellings (case, trailing slash, HEAD) go to the router too.
 */
export function mountOperations(operations: Operation[], handlers: HandlerMap, options: MountOptions): Router {
  const router = Router();
  const exact = new Map<string, { path: string; run: RequestHandler }>();
  const known = new Set(operations.map((o) => o.operationId));
  const orphans = Object.keys(handlers).filter((id) => !known.has(id));
  const missing = operations.filter((o) => !handlers[o.operationId]).map((o) => o.operationId);
  if (orphans.length || missing.length) {
    throw new Error(
      `Routes and contracts differ. Handlers without an operation: [${orphans.join(', ')}]; operations without a handler: [${missing.join(', ')}]`,
    );
  }
  for (const o of operations) {
    const body = o.body === 'multipart' ? null : compile(o.body, jsonAjv);
    const query = compile(o.query);
    const params = compile(o.params);
    const handler = handlers[o.operationId];
    const run = async (req: Request, res: Response, next: NextFunction) => {
      try {
        const identity = options.identityOf(req);
        const ctx: HandlerContext = {
          req,
          res,
          body: req.body ?? {},
          query: { ...req.query },
          params: { ...req.params } as Record<string, string>,
          identity,
          actor: null,
          apiKey: null,
        };
        await authenticate(o, ctx, options);
        if (o.body && o.body !== 'multipart') assertJsonBody(req, res);
        if (o.body && o.body !== 'multipart' && (ctx.body === null || typeof ctx.body !== 'object' || Array.isArray(ctx.body))) {
          throw new DomainError('VALIDATION', 'Request body must be a JSON object');
        }
        // NUL cannot be stored in Postgres text nor searched: refused here, before any use case sees it.
        assertNoNul(ctx.params, 'params');
        assertNoNul(ctx.query, 'query');
        check(params, ctx.params, 'params');
        check(query, ctx.query, 'query');
        check(body, ctx.body, 'body');
        // Validated just above against the operation's schemas: the handler's body and query types hold.
        const result = await handler(ctx as HandlerContext<never, never>);
        if (!result || res.headersSent) return;
        if (result.headers) res.set(result.headers);
        if (result.body === undefined) res.status(result.status).end();
        else if (result.headers)
          res.status(result.status).json(result.body); // its headers may ask for express's freshness rules
        else sendJson(res, result.status, result.body);
      } catch (e) {
        next(e);
      }
    };
    router[o.method](o.path, run);
    const path = staticPathOf(o.path);
    const taken = (p: string) => operations.slice(0, operations.indexOf(o)).some((e) => e.method === o.method && mayMatch(e.path, p));
    if (path !== null && !taken(path)) exact.set(`${o.method.toUpperCase()} ${path}`, { path: o.path, run });
  }
  const dispatch = Router();
  dispatch.use((req: Request, res: Response, next: NextFunction) => {
    const hit = exact.get(`${req.method} ${req.path}`);
    if (!hit) return next();
    req.route = { path: hit.path }; // what a matched route gives request logs, metrics and traces
    return hit.run(req, res, next);
  });
  dispatch.use(router);
  return dispatch;
}

async function authenticate(o: Operation, ctx: HandlerContext, options: MountOptions) {
  const id = ctx.identity;
  if (o.auth === 'user' || (o.auth === 'public' && id.userId)) {
    if (!id.userId) throw new DomainError('MISSING_AUTHORIZATION', 'A bearer access token is required');
    ctx.actor = await options.resolveActor(id);
    if (!ctx.actor) throw new DomainError('AUTHENTICATION_FAILED', 'The account behind this token no longer exists');
  }
  if (o.auth === 'apiKey') {
    if (!id.apiKeyId || !id.organizationId) throw new DomainError('MISSING_AUTHORIZATION', 'An API key is required');
    ctx.apiKey = { keyId: id.apiKeyId, organizationId: id.organizationId, scopes: id.apiKeyScopes };
    if (o.scope && !id.apiKeyScopes.includes(o.scope)) {
      throw new DomainError('INSUFFICIENT_SCOPE', `This API key lacks the scope ${o.scope}`);
    }
  }
}
