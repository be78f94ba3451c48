import type { Actor } from '../identity/actor';
import type { ModelAvailability } from '../models/model-availability';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Store } from '../ports/store';

/** One source of a setup request (docs/contracts.md "Agent setup with sources"). */
export interface SetupSource {
  url: string;
  sourceType: string;
}

/**
 * Starts ingestion of the sources of `POST /api/bots/setup` into the new knowledge base. Runs after the
 * knowledge base and the draft agent are committed. The sources area implements it (core/sources/setup-ingestion.ts).
 */
export interface SetupSourceIngestion {
  start(input: { organizationId: string; userId: string; knowledgeBaseId: string; agentId: string; sources: SetupSource[] }): Promise<void>;
}

/** A knowledge base created by agent setup, as the response shows it. */
export interface CreatedKnowledgeBase {
  id: string;
  name: string;
  description: string;
  [key: string]: unknown;
}

/**
 * Creates the knowledge base of a setup request. Called inside the setup transaction: a `Store` joins the
 * transaction already open on the async path, so a failing agent creation leaves no knowledge base behind.
 * Provided by the knowledge area (its createKnowledgeBase use case, with its own plan limit and audit).
 */
export type SetupKnowledgeBaseFactory = (actor: Actor, input: { name: string; description: string }) => Promise<CreatedKnowledgeBase>;

export interface AgentSettings {
  /** DEFAULT_CHAT_MODEL, else the offline `local/extractive`. */
  defaultModel: string;
  /** Where a distributed agent is reached (read on use: the base URL is completed after the gateway binds). */
  publicAgentUrl(slug: string): string;
}

export interface AgentDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  settings: AgentSettings;
  setup: { createKnowledgeBase: SetupKnowledgeBaseFactory | null; ingestion: SetupSourceIngestion };
  /** Models a configured provider serves; an agent's model is checked against it on create and update. */
  models?: ModelAvailability | null;
}

export const FALLBACK_CHAT_MODEL = 'local/extractive';
