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

/**
 * An Express path as its segments, each a literal or null for a whole-segment parameter (`:name`), with the
 * parameters' names; null for any other syntax (wildcards, optional parts, a parameter inside a segment).
 */
export function segmentsOf(path: string): { literals: (string | null)[]; names: string[] } | null {
  if (/[*{}()?+]/.test(path)) return null;
  const literals: (string | null)[] = [];
  const names: string[] = [];
  for (const part of path.split('/')) {
    const param = /^:([A-Za-z0-9_]+)$/.exec(part);
    if (param) {
      literals.push(null);
      names.push(param[1]);
    } else if (/(?<!\\):/.test(part)) return null;
    else literals.push(part.replace(/\\:/g, ':'));
  }
  return { literals, names };
}

interface DirectRoute {
  path: string;
  literals: (string | null)[];
  lowered: (string | null)[];
  names: string[];
  run: RequestHandler;
}

/**
 * The routes of whole-segment paths by method and segment count, in registration order, so a request is
 * matched by comparing strings instead of trying every route's regular expression. Answers only where the
 * router would answer the same: the first route whose segments match wins (compared as the router compares,
 * ignoring case, so an earlier route that differs only in case sends the request to the router); a method's
 * routes after one with other syntax, a trailing slash, and a parameter that does not decode are left to it.
 */
class DirectRoutes {
  private readonly table = new Map<string, DirectRoute[]>();
  private readonly closed = new Set<string>();

  add(method: string, path: string, run: RequestHandler): void {
    const upper = method.toUpperCase();
    if (this.closed.has(upper)) return;
    const parsed = segmentsOf(path);
    if (!parsed) {
      this.closed.add(upper); // its matches are the router's to find, and so are those of every later route
      return;
    }
    const key = `${upper} ${parsed.literals.length}`;
    const lowered = parsed.literals.map((l) => l?.toLowerCase() ?? null);
    this.table.set(key, [...(this.table.get(key) ?? []), { path, ...parsed, lowered, run }]);
  }

  match(method: string, path: string): { route: DirectRoute; params: Record<string, string> } | null {
    if (path.length > 1 && path.endsWith('/')) return null;
    const parts = path.split('/');
    const routes = this.table.get(`${method} ${parts.length}`);
    if (!routes) return null;
    const lowered = parts.map((p) => p.toLowerCase());
    for (const route of routes) {
      if (!route.lowered.every((l, i) => (l === null ? parts[i] !== '' : l === lowered[i]))) continue;
      if (!route.literals.every((l, i) => l === null || l === parts[i])) return null; // a match only by case
      const params: Record<string, string> = {};
      let n = 0;
      for (let i = 0; i < parts.length; i++) {
        if (route.literals[i] !== null) continue;
        try {
          params[route.names[n++]] = decodeURIComponent(parts[i]);
        } catch {
          return null; // the router answers 400 for it
        }
      }
      return { route, params };
    }
    return null;
  }
}

/**
 * Mounts every operation on a router with its handler. An operation without a handler, or a handler
 * without an operation, fails at boot, so the routes and the OpenAPI document cannot drift apart.
 *
 * Operations are also found by a lookup in front of the router (DirectRoutes), which otherwise tries its ~170
 * routes one regular expression after another: for a parameterised path such as an inbound webhook, the
 * router's layers took about 10% of the main thread's CPU under load. The first route registered still wins;
 * other spellings (trailing slash, HEAD) go to the router.
 */
export function mountOperations(operations: Operation[], handlers: HandlerMap, options: MountOptions): RequestHandler & { routes: Router } {
  const router = Router();
  const direct = new DirectRoutes();
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
        // The actor is awaited here, not in a helper: every async layer is one more promise (and its hooks) a request.
        if (needsActor(o, identity)) {
          ctx.actor = await options.resolveActor(identity);
          if (!ctx.actor) throw new DomainError('AUTHENTICATION_FAILED', 'The account behind this token no longer exists');
        }
        authorizeApiKey(o, ctx);
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
    direct.add(o.method, o.path, run);
  }
  const dispatch = (req: Request, res: Response, next: NextFunction) => {
    const hit = direct.match(req.method, req.path);
    if (!hit) return router(req, res, next);
    req.route = { path: hit.route.path }; // what a matched route gives request logs, metrics and traces
    req.params = hit.params;
    return hit.route.run(req, res, next);
  };
  return Object.assign(dispatch, { routes: router }); // every operation's route, for the contract test to list
}

/** Whether the operation acts as a user (a user operation, or a public one called signed in); refuses one without a user. */
function needsActor(o: Operation, id: ForwardedIdentity): boolean {
  if (o.auth !== 'user' && !(o.auth === 'public' && id.userId)) return false;
  if (!id.userId) throw new DomainError('MISSING_AUTHORIZATION', 'A bearer access token is required');
  return true;
}

function authorizeApiKey(o: Operation, ctx: HandlerContext): void {
  const id = ctx.identity;
  if (o.auth === 'apiKey') {
    if (!id.apiKeyId || !id.organizationId) throw new DomainError('MISSING_AUTHORIZATION', 'An API key is required');
    ctx.apiKey = { keyId: id.apiKeyId, organizationId: id.organizationId, scopes: id.apiKeyScopes };
    if (o.scope && !id.apiKeyScopes.includes(o.scope)) {
      throw new DomainError('INSUFFICIENT_SCOPE', `This API key lacks the scope ${o.scope}`);
    }
  }
}
