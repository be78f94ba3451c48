import { useState } from 'preact/hooks';

import type { JobEvent } from '../../../sdk';
import { api, applySuggestions, generateSuggestions, type GraphSuggestion, listSuggestions, setSuggestionStatus } from '../api';
import { ErrorNotice, Field, Link, Page, useAction, useLoad } from '../ui';

const STATUSES = ['pending', 'approved', 'rejected', 'applied'];

function SuggestionItem({ kbId, s, onChanged }: { kbId: string; s: GraphSuggestion; onChanged(): void }) {
  const decide = useAction(async (status: 'approved' | 'rejected') => {
    await setSuggestionStatus(kbId, s.id, status);
    onChanged();
  });
  const what = s.reason ?? s.type;
  return (
    <li class="card" data-testid="suggestion">
      <p>
        <span class="badge">{s.type.replace(/_/g, ' ')}</span>
        <span class={`badge ${s.status}`}>{s.status}</span> {what}
      </p>
      <small>
        Confidence {s.confidence !== undefined ? s.confidence.toFixed(2) : '—'}
        {s.resolvedBy ? ` · decided by ${s.resolvedBy === 'ai' ? 'the model' : 'a person'}` : ''}
      </small>
      {s.status !== 'applied' ? (
        <div class="row">
          <button
            type="button"
            disabled={decide.busy || s.status === 'approved'}
            onClick={() => void decide.run('approved')}
            aria-label={`Approve: ${what}`}
          >
            Approve
          </button>
          <button
            type="button"
            disabled={decide.busy || s.status === 'rejected'}
            onClick={() => void decide.run('rejected')}
            aria-label={`Reject: ${what}`}
          >
            Reject
          </button>
        </div>
      ) : null}
      <ErrorNotice error={decide.error} />
    </li>
  );
}

/**
 * Suggestions review of a knowledge graph: generate (a background job whose progress is shown), approve or
 * reject each, then apply the approved ones.
 */
export function GraphSuggestionsPage({ kbId }: { kbId: string }) {
  const kb = useLoad(() => api.getKnowledgeBase(kbId), [kbId]);
  const [status, setStatus] = useState('pending');
  const list = useLoad(() => listSuggestions(kbId, { status: status || undefined, limit: 100 }), [kbId, status]);
  const approved = useLoad(() => listSuggestions(kbId, { status: 'approved', limit: 1000 }), [kbId, list.data]);
  const [job, setJob] = useState<JobEvent | null>(null);
  const [outcome, setOutcome] = useState<string | null>(null);
  const refresh = () => list.reload();

  const generate = useAction(async () => {
    setOutcome(null);
    const { jobId } = await generateSuggestions(kbId);
    setJob(await api.watchJob(jobId, setJob));
    refresh();
  });
  const apply = useAction(async () => {
    const ids = approved.data?.suggestions.map((s) => s.id) ?? [];
    const r = await applySuggestions(kbId, ids);
    setOutcome(
      `Applied ${r.applied} suggestion${r.applied === 1 ? '' : 's'}${r.failed ? `; ${r.failed} failed: ${r.errors.map((e) => e.error).join('; ')}` : ''}.`,
    );
    refresh();
  });
  const approvedCount = approved.data?.total ?? 0;

  return (
    <Page title={kb.data ? `Graph suggestions: ${kb.data.knowledgeBase.name}` : 'Graph suggestions'}>
      <p>
        <Link to={`/knowledge/${kbId}`}>Back to the knowledge base</Link> · <Link to={`/knowledge/${kbId}/graph`}>Entities and issues</Link>
      </p>
      <ErrorNotice error={kb.error} />
      <section aria-labelledby="generate-h" class="card">
        <h2 id="generate-h">Find improvements</h2>
        <p>Looks for duplicates, entities to rename or remove, orphans and low-confidence extractions. Pending suggestions are replaced.</p>
        <div class="row">
          <button type="button" class="primary" disabled={generate.busy} onClick={() => void generate.run()}>
            Generate suggestions
          </button>
          <button type="button" disabled={apply.busy || approvedCount === 0} onClick={() => void apply.run()}>
            Apply {approvedCount} approved
          </button>
        </div>
        {job ? (
          <p class="status" data-status={job.status} aria-live="polite">
            <progress max={100} value={job.progress} aria-label="Suggestion generation" /> {job.status}
            {job.stepLabel ? ` · ${job.stepLabel}` : ''} ({job.progress}%){job.error ? ` — ${job.error.message}` : ''}
          </p>
        ) : null}
        {outcome ? (
          <p role="status" data-testid="apply-outcome">
            {outcome}
          </p>
        ) : null}
        <ErrorNotice error={generate.error ?? apply.error} />
      </section>
      <section aria-labelledby="suggestions-h">
        <h2 id="suggestions-h">Suggestions</h2>
        <Field label="Status">
          <select value={status} onChange={(e) => setStatus((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">All</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </Field>
        <ErrorNotice error={list.error} />
        {list.data?.suggestions.length === 0 ? <p>No {status || ''} suggestion.</p> : null}
        <ul class="cards">
          {list.data?.suggestions.map((s) => (
            <SuggestionItem key={s.id} kbId={kbId} s={s} onChanged={refresh} />
          ))}
        </ul>
      </section>
    </Page>
  );
}
