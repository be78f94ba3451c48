/**
 * A recording fake of the slice of neo4j-driver the graph store uses (sessions, managed transactions, `run`).
 * It keeps every statement with its parameters, session database and access mode, and answers with records
 * the test scripted per statement text, built with the driver's real Record, Node, Relationship and Integer.
 */
import { int, Node, Record as Neo4jRecord, Relationship } from 'neo4j-driver';

import type { CypherDriver, CypherParameters, CypherSession, CypherTransaction } from '../neo4j.cypher-runner';

export interface RecordedStatement {
  database: string | undefined;
  mode: 'READ' | 'WRITE';
  cypher: string;
  params: CypherParameters;
}

type Reply = Neo4jRecord[] | ((params: CypherParameters) => Neo4jRecord[]);

export class RecordingDriver implements CypherDriver {
  readonly statements: RecordedStatement[] = [];
  closed = false;
  private readonly replies = new Map<string, Reply>();

  /** Records returned for every run of this exact statement text. */
  reply(cypher: string, records: Reply): this {
    this.replies.set(cypher, records);
    return this;
  }

  session(config: { database?: string; defaultAccessMode?: 'READ' | 'WRITE' }): CypherSession {
    const transaction = (mode: 'READ' | 'WRITE'): CypherTransaction => ({
      run: async (cypher, params = {}) => {
        this.statements.push({ database: config.database, mode, cypher, params });
        const reply = this.replies.get(cypher) ?? [];
        return { records: typeof reply === 'function' ? reply(params) : reply };
      },
    });
    return {
      executeRead: (work) => work(transaction('READ')),
      executeWrite: (work) => work(transaction('WRITE')),
      close: async () => undefined,
    };
  }

  async close() {
    this.closed = true;
  }

  clear() {
    this.statements.length = 0;
    this.replies.clear();
  }
}

let identity = 0;
const nextIdentity = () => int(++identity);

/** A driver Record with the given fields (values as the driver returns them). */
export const record = (fields: Record<string, unknown>) => new Neo4jRecord(Object.keys(fields), Object.values(fields));

export function entityNode(properties: Record<string, unknown>) {
  const id = nextIdentity();
  return new Node(id, ['Entity'], properties, `4:db:${id.toString()}`);
}

export function suggestionNode(properties: Record<string, unknown>) {
  const id = nextIdentity();
  return new Node(id, ['GraphSuggestion'], properties, `4:db:${id.toString()}`);
}

export function relatedRelationship(properties: Record<string, unknown>) {
  const id = nextIdentity();
  const [start, end] = [nextIdentity(), nextIdentity()];
  return new Relationship(id, start, end, 'RELATED', properties, `5:db:${id}`, `4:db:${start}`, `4:db:${end}`);
}
