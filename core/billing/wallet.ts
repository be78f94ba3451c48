export interface Wallet {
  organizationId: string;
  balanceUsd: number;
  updatedAt: string;
}

export interface BillingEvent {
  id: string;
  organizationId: string;
  /** What was billed: chat, search, document_processing, graph, welcome_message, embedding, top_up... */
  kind: string;
  model: string | null;
  promptTokens: number;
  completionTokens: number;
  /** Provider cost before margin. */
  providerCostUsd: number;
  /** What the wallet was charged (provider cost times margin); negative for top-ups. */
  costUsd: number;
  reference: Record<string, unknown>;
  createdAt: string;
}

export interface WalletRepository {
  create(wallet: Wallet): Promise<void>;
  find(organizationId: string): Promise<Wallet | null>;
  /** Adds `deltaUsd` (negative to charge) atomically; returns the new balance. */
  adjust(organizationId: string, deltaUsd: number, at: string): Promise<number>;
}

export interface BillingEventRepository {
  record(event: BillingEvent): Promise<void>;
  listRecent(organizationId: string, limit: number): Promise<BillingEvent[]>;
}
