import type { Request, Response } from 'express';

import type { Actor, ApiKeyActor } from '../../core/identity/actor';
import type { ForwardedIdentity } from '../../core/identity/token-claims';

export interface HandlerContext {
  req: Request;
  res: Response;
  // Validated against the operation's schemas before the handler runs.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  query: any;
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
export type Handler = (ctx: HandlerContext) => Promise<HandlerResult | void>;
export type HandlerMap = Record<string, Handler>;

/** Narrowing helper for handlers on the user lane. */
export function requireActor(ctx: HandlerContext): Actor {
  if (!ctx.actor) throw new Error(`operation on ${ctx.req.path} ran without an actor`);
  return ctx.actor;
}

export function requireApiKey(ctx: HandlerContext): ApiKeyActor {
  if (!ctx.apiKey) throw new Error(`operation on ${ctx.req.path} ran without an API key`);
  return ctx.apiKey;
}
