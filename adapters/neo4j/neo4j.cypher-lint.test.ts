/**
 * Every statement the Neo4j graph store sends, checked by Neo4j's own Cypher language support
 * (@neo4j-cypher/language-support: the Cypher parser plus the semantic analysis of the Neo4j query front end).
 * It catches syntax errors, unbound variables and grouping mistakes without a server. It does not check plans,
 * indexes or results: the contract tests and the live conformance suite cover those.
 */
import { isNotParamError, lintCypherQuery } from '@neo4j-cypher/language-support';

import { CYPHER, SCHEMA } from './neo4j.statements';

/** Errors (not warnings) of a statement, parameters aside: they are declared at run time. */
const errorsOf = (cypher: string) =>
  lintCypherQuery(cypher, {})
    .diagnostics.map((d) => ({ severity: d.severity, message: typeof d.message === 'string' ? d.message : d.message.value }))
    .filter((d) => d.severity === 1 && isNotParamError(d))
    .map((d) => d.message);

describe('Neo4j graph store: Cypher accepted by the Neo4j language front end', () => {
  it.each([...Object.entries(CYPHER), ...SCHEMA.map((s, i) => [`schema ${i}`, s] as const)])('%s', (_name, cypher) => {
    expect(errorsOf(cypher)).toEqual([]);
  });

  it('reports a broken statement (the check can fail)', () => {
    const broken = CYPHER.entitiesById.replace('WITH e,', 'WITH');
    expect(errorsOf(broken).length).toBeGreaterThan(0);
  });
});
