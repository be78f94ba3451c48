import { useState } from 'preact/hooks';

import { api, getEntity, type GraphEntity, type GraphIssue, graphIssues, graphStats, listEntities } from '../api';
import { ErrorNotice, Field, formatDate, Link, Page, useLoad } from '../ui';

const ISSUE_CATEGORIES = ['duplicate', 'remove', 'rename', 'orphan', 'needs_review', 'low_confidence'];
const label = (category: string) => category.replace(/_/g, ' ');
const graphRoute = (kbId: string) => `/knowledge/${kbId}/graph`;

function GraphLinks({ kbId }: { kbId: string }) {
  return (
    <p>
      <Link to={`/knowledge/${kbId}`}>Back to the knowledge base</Link> · <Link to={graphRoute(kbId)}>Entities and issues</Link> ·{' '}
      <Link to={`${graphRoute(kbId)}/suggestions`}>Suggestions review</Link>
    </p>
  );
}

/** Outstanding problems: suggestions first, then entities matching a rule, per category with its count. */
function IssuesSection({ kbId }: { kbId: string }) {
  const [category, setCategory] = useState('');
  const issues = useLoad(() => graphIssues(kbId, { category: category || undefined, limit: 50 }), [kbId, category]);
  const describe = (i: GraphIssue) => (i.kind === 'suggestion' ? (i.suggestion?.reason ?? '') : (i.entity?.name ?? ''));
  return (
    <section aria-labelledby="issues-h">
      <h2 id="issues-h">Issues</h2>
      <Field label="Category">
        <select value={category} onChange={(e) => setCategory((e.currentTarget as HTMLSelectElement).value)}>
          <option value="">All categories</option>
          {ISSUE_CATEGORIES.map((c) => (
            <option key={c} value={c}>
              {label(c)}
              {issues.data ? ` (${issues.data.counts[c] ?? 0})` : ''}
            </option>
          ))}
        </select>
      </Field>
      <ErrorNotice error={issues.error} />
      {issues.data?.issues.length === 0 ? <p>No issue in this category.</p> : null}
      <ul class="issues" data-testid="graph-issues">
        {issues.data?.issues.map((i, n) => (
          <li key={`${i.kind}-${i.suggestion?.id ?? i.entity?.id ?? n}`}>
            <span class="badge">{label(i.category)}</span>
            {i.kind === 'entity' && i.entity ? (
              <Link to={`${graphRoute(kbId)}/entities/${i.entity.id}`}>{i.entity.name}</Link>
            ) : (
              <span>{describe(i)}</span>
            )}
            {i.suggestion ? <small> · suggestion {i.suggestion.status}</small> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The knowledge graph of a knowledge base: counts, entities with type filter and search, issues. */
export function GraphPage({ kbId }: { kbId: string }) {
  const kb = useLoad(() => api.getKnowledgeBase(kbId), [kbId]);
  const stats = useLoad(() => graphStats(kbId), [kbId]);
  const [type, setType] = useState('');
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const entities = useLoad(
    () => listEntities(kbId, { type: type || undefined, search: query || undefined, limit: 100 }),
    [kbId, type, query],
  );
  const types = Object.keys(stats.data?.stats.entitiesByType ?? {}).sort();
  return (
    <Page title={kb.data ? `Knowledge graph: ${kb.data.knowledgeBase.name}` : 'Knowledge graph'}>
      <GraphLinks kbId={kbId} />
      <ErrorNotice error={kb.error ?? stats.error} />
      {stats.data ? (
        <ul class="metrics">
          <li>
            Entities <strong data-testid="graph-entities">{stats.data.stats.totalEntities}</strong>
          </li>
          <li>
            Relationships <strong>{stats.data.stats.totalRelationships}</strong>
          </li>
        </ul>
      ) : null}
      <section aria-labelledby="entities-h">
        <h2 id="entities-h">Entities</h2>
        <form
          class="card inline"
          role="search"
          onSubmit={(e) => {
            e.preventDefault();
            setQuery(search.trim());
          }}
        >
          <Field label="Entity type">
            <select value={type} onChange={(e) => setType((e.currentTarget as HTMLSelectElement).value)}>
              <option value="">All types</option>
              {types.map((t) => (
                <option key={t} value={t}>
                  {t} ({stats.data?.stats.entitiesByType[t]})
                </option>
              ))}
            </select>
          </Field>
          <Field label="Name or alias">
            <input type="search" value={search} onInput={(e) => setSearch((e.currentTarget as HTMLInputElement).value)} />
          </Field>
          <button type="submit">Find entities</button>
        </form>
        <ErrorNotice error={entities.error} />
        <table>
          <caption>Most mentioned first{entities.data ? ` (${entities.data.total})` : ''}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Mentions</th>
              <th scope="col">Aliases</th>
            </tr>
          </thead>
          <tbody>
            {entities.data?.entities.map((e) => (
              <tr key={e.id}>
                <td>
                  <Link to={`${graphRoute(kbId)}/entities/${e.id}`}>{e.name}</Link>
                </td>
                <td>{e.type}</td>
                <td>{e.mentionCount}</td>
                <td>{e.aliases.join(', ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <IssuesSection kbId={kbId} />
    </Page>
  );
}

/** One entity and its 1-hop neighbourhood: every relationship, each end linking to that entity. */
export function EntityPage({ kbId, entityId }: { kbId: string; entityId: string }) {
  const detail = useLoad(() => getEntity(kbId, entityId), [kbId, entityId]);
  const d = detail.data;
  const byId = new Map<string, GraphEntity>([...(d?.connectedEntities ?? []), ...(d ? [d.entity] : [])].map((e) => [e.id, e]));
  const name = (id: string) => {
    const e = byId.get(id);
    if (!e) return <span>unknown</span>;
    return id === entityId ? <strong>{e.name}</strong> : <Link to={`${graphRoute(kbId)}/entities/${id}`}>{e.name}</Link>;
  };
  return (
    <Page title={d ? `Entity: ${d.entity.name}` : 'Entity'}>
      <GraphLinks kbId={kbId} />
      <ErrorNotice error={detail.error} />
      {d ? (
        <>
          <dl class="card facts">
            <dt>Type</dt>
            <dd>{d.entity.type}</dd>
            <dt>Aliases</dt>
            <dd>{d.entity.aliases.join(', ') || '—'}</dd>
            <dt>Mentions</dt>
            <dd>{d.entity.mentionCount}</dd>
            <dt>Documents</dt>
            <dd>{d.entity.documentIds.length}</dd>
            <dt>Description</dt>
            <dd>{d.entity.description || '—'}</dd>
            <dt>Extracted</dt>
            <dd>{formatDate(d.entity.createdAt)}</dd>
          </dl>
          <section aria-labelledby="neighbourhood-h">
            <h2 id="neighbourhood-h">Neighbourhood ({d.connectedEntities.length} connected entities)</h2>
            {d.relationships.length === 0 ? <p>No relationship.</p> : null}
            <table data-testid="neighbourhood">
              <thead>
                <tr>
                  <th scope="col">From</th>
                  <th scope="col">Relationship</th>
                  <th scope="col">To</th>
                  <th scope="col">Weight</th>
                </tr>
              </thead>
              <tbody>
                {d.relationships.map((r) => (
                  <tr key={r.id}>
                    <td>{name(r.sourceEntityId)}</td>
                    <td>{label(r.type)}</td>
                    <td>{name(r.targetEntityId)}</td>
                    <td>{r.weight.toFixed(2)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      ) : null}
    </Page>
  );
}
