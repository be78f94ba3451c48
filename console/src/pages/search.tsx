import { useState } from 'preact/hooks';

import type { SearchResult } from '../../../sdk';
import { api } from '../api';
import { ErrorNotice, Field, Page, useAction, useLoad } from '../ui';

/** Search playground (spec 4.9): each result with its score and how it was found. */
export function SearchPage() {
  const kbs = useLoad(() => api.listKnowledgeBases({ limit: 100 }), []);
  const [results, setResults] = useState<SearchResult[] | null>(null);
  const run = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const ids = data.getAll('kb').map(String);
    const r = await api.search({ knowledgeBaseIds: ids, query: String(data.get('query')), topK: Number(data.get('topK')) || undefined });
    setResults(r.results);
  });
  return (
    <Page title="Search playground">
      <form
        class="card"
        onSubmit={(e) => {
          e.preventDefault();
          void run.run(e.currentTarget);
        }}
      >
        <fieldset>
          <legend>Knowledge bases</legend>
          {kbs.data?.knowledgeBases.map((kb, i) => (
            <label key={kb.id} class="check">
              <input type="checkbox" name="kb" value={kb.id} defaultChecked={i === 0} /> {kb.name}
            </label>
          ))}
        </fieldset>
        <Field label="Query">
          <input name="query" type="search" required />
        </Field>
        <Field label="Results (topK)">
          <input name="topK" type="number" min={1} max={50} defaultValue="10" />
        </Field>
        <ErrorNotice error={run.error ?? kbs.error} />
        <button type="submit" class="primary" disabled={run.busy}>
          Search
        </button>
      </form>
      {results ? (
        <section aria-labelledby="results-h">
          <h2 id="results-h">{results.length} results</h2>
          <ol class="results">
            {results.map((r, i) => (
              <li key={i} class="card">
                <p>
                  <strong>{r.metadata.documentTitle}</strong> · chunk {r.metadata.chunkIndex} · score{' '}
                  <span data-testid="score">{r.score.toFixed(3)}</span>
                </p>
                <p>
                  Found by:{' '}
                  {r.discoveryMethods.map((m) => (
                    <span key={m} class="badge">
                      {m}
                    </span>
                  ))}
                </p>
                <blockquote>{r.content}</blockquote>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </Page>
  );
}
