import type { Request, Response } from 'express';

import type { Operation } from '../../contracts/operation';
import type { SchemaType } from '../../contracts/schema-type';
import type { Actor, ApiKeyActor } from '../../core/identity/actor';
import type { ForwardedIdentity } from '../../core/identity/token-claims';

/** What a handler receives; `body` and `query` were validated against the operation's schemas before it runs. */
export interface HandlerContext<Body = unknown, Query = unknown> {
  req: Request;
  res: Response;
  body: Body;
  query: Query;
  params: Record<string, string>;
  identity: ForwardedIdentity;
  /** Present on the user lane (always) and on the public lane (when a verified token came along). */
  actor: Actor | null;
  /** Present on the apiKey lane. */
  apiKey: ApiKeyActor | null;
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** Returns a result to send as JSON, or nothing when it wrote the response itself (SSE, CSV, redirects). */
export type Handler<Body = unknown, Query = unknown> = (ctx: HandlerContext<Body, Query>) => Promise<HandlerResult | void>;

/** Handlers by operationId, as the HTTP adapter mounts them (each typed by its operation, see `typedHandlers`). */
export type HandlerMap = Record<string, Handler<never, never>>;

/** The body and query types of an operation, from its schemas. */
export type BodyOf<O extends Operation> = O['body'] extends 'multipart' | undefined ? Record<string, never> : SchemaType<O['body']>;
export type QueryOf<O extends Operation> = O['query'] extends undefined ? Record<string, never> : SchemaType<O['query']>;

/** One handler per operation of `Ops`, each receiving the body and query its schemas describe. */
export type TypedHandlers<Ops extends readonly Operation[]> = {
  [O in Ops[number] as O['operationId']]: Handler<BodyOf<O>, QueryOf<O>>;
};

/** Types a route module's handlers by its operations (`typedHandlers<typeof sourceOperations>()({...})`). */
export const typedHandlers =
  <Ops extends readonly Operation[]>() =>
  (handlers: TypedHandlers<Ops>): HandlerMap =>
    handlers as unknown as HandlerMap;

/** Narrowing helper for handlers on the user lane. */
export function requireActor(ctx: Pick<HandlerContext, 'actor' | 'req'>): Actor {
  if (!ctx.actor) throw new Error(`operation on ${ctx.req.path} ran without an actor`);
  return ctx.actor;
}

export function requireApiKey(ctx: Pick<HandlerContext, 'apiKey' | 'req'>): ApiKeyActor {
  if (!ctx.apiKey) throw new Error(`operation on ${ctx.req.path} ran without an API key`);
  return ctx.apiKey;
}
