/**
 * The slice of neo4j-driver the graph store uses: sessions on one database, managed read and write
 * transactions, and `run(cypher, parameters)`. A real `Driver` satisfies it; contract tests pass a recording
 * fake of the same shape (docs/CONVENTIONS.md: an injected client instead of monkey-patching).
 */
import type { Record as Neo4jRecord } from 'neo4j-driver';

export type CypherParameters = Record<string, unknown>;

export interface CypherTransaction {
  run(cypher: string, parameters?: CypherParameters): PromiseLike<{ records: Neo4jRecord[] }>;
}

export interface CypherSession {
  executeRead<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T>;
  executeWrite<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface CypherDriver {
  session(config: { database?: string; defaultAccessMode?: 'READ' | 'WRITE' }): CypherSession;
  close(): Promise<void>;
}

/** Runs work in one managed transaction of a fresh session on the configured database (retried by the driver). */
export class CypherRunner {
  constructor(
    private readonly driver: CypherDriver,
    private readonly database: string | undefined,
  ) {}

  async read<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: 'READ' });
    try {
      return await session.executeRead(work);
    } finally {
      await session.close();
    }
  }

  async write<T>(work: (tx: CypherTransaction) => Promise<T>): Promise<T> {
    const session = this.driver.session({ database: this.database, defaultAccessMode: 'WRITE' });
    try {
      return await session.executeWrite(work);
    } finally {
      await session.close();
    }
  }

  /** One read statement, its records. */
  query(cypher: string, parameters: CypherParameters): Promise<Neo4jRecord[]> {
    return this.read(async (tx) => (await tx.run(cypher, parameters)).records);
  }
}
