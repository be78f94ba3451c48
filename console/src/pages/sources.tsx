import { useState } from 'preact/hooks';

import type { JobEvent } from '../../../sdk';
import { addSource, api, deleteSource, listSources, type Source, syncSource } from '../api';
import { ErrorNotice, Field, formatDate, formValues, useAction, useLoad } from '../ui';

/** Source types a user adds by URL (the plugin catalogue's types, spec 4.7). */
const SOURCE_TYPES: [string, string][] = [
  ['url', 'Single page'],
  ['website', 'Website (crawl)'],
  ['rss', 'RSS or Atom feed'],
  ['medium', 'Medium'],
  ['youtube', 'YouTube'],
  ['shopify', 'Shopify store'],
  ['instagram', 'Instagram'],
  ['linkedin', 'LinkedIn'],
  ['twitter', 'X (Twitter)'],
];

const jobLabel = (e: JobEvent) => `${e.status}${e.stepLabel ? ` · ${e.stepLabel}` : ''} (${e.progress}%)`;

/** A source's row: its sync health, last error, item count, and a re-sync that shows the job's progress. */
function SourceRow({ kbId, source, onChanged }: { kbId: string; source: Source; onChanged(): void }) {
  const [job, setJob] = useState<JobEvent | null>(null);
  const resync = useAction(async () => {
    const { jobId } = await syncSource(kbId, source.id);
    setJob(await api.watchJob(jobId, setJob));
    onChanged();
  });
  const remove = useAction(async () => {
    await deleteSource(kbId, source.id);
    onChanged();
  });
  return (
    <tr data-testid="source">
      <td>
        <a href={source.url} rel="noreferrer noopener" target="_blank">
          {source.url}
        </a>
      </td>
      <td>{source.sourceType}</td>
      <td>
        <span class={`badge ${source.syncHealth}`} data-testid="source-health">
          {source.syncHealth}
        </span>
        {source.lastSyncError ? <small class="error"> {source.lastSyncError}</small> : null}
      </td>
      <td>{source.itemCount}</td>
      <td>
        {formatDate(source.lastSyncedAt)}
        {source.syncEnabled ? <small> · next {formatDate(source.nextSyncAt)}</small> : null}
      </td>
      <td>
        <div class="row">
          <button type="button" disabled={resync.busy} onClick={() => void resync.run()} aria-label={`Re-sync ${source.url}`}>
            Re-sync
          </button>
          <button type="button" disabled={remove.busy} onClick={() => void remove.run()} aria-label={`Remove ${source.url}`}>
            Remove
          </button>
        </div>
        {job ? (
          <span class="status" data-status={job.status} aria-live="polite">
            <progress max={100} value={job.progress} aria-label={`Sync of ${source.url}`} /> {jobLabel(job)}
            {job.error ? ` — ${job.error.message}` : ''}
          </span>
        ) : null}
        <ErrorNotice error={resync.error ?? remove.error} />
      </td>
    </tr>
  );
}

/** The knowledge base's sources section: add by URL, then health, item counts, re-sync and removal. */
export function KnowledgeSources({ kbId, onSynced }: { kbId: string; onSynced(): void }) {
  const sources = useLoad(() => listSources(kbId), [kbId]);
  const [job, setJob] = useState<JobEvent | null>(null);
  const refresh = () => {
    sources.reload();
    onSynced();
  };
  const add = useAction(async (v: Record<string, string>, form: HTMLFormElement) => {
    const { jobId } = await addSource(kbId, { url: v.url!, sourceType: v.sourceType!, syncEnabled: v.syncEnabled === 'on' });
    form.reset();
    sources.reload();
    setJob(await api.watchJob(jobId, setJob));
    refresh();
  });
  return (
    <section aria-labelledby="sources-h">
      <h2 id="sources-h">Sources</h2>
      <form
        class="card inline"
        onSubmit={(e) => {
          const form = e.currentTarget as HTMLFormElement;
          void add.run(formValues(e), form);
        }}
      >
        <Field label="Source URL">
          <input name="url" type="url" required maxLength={2048} placeholder="https://example.com/feed.xml" />
        </Field>
        <Field label="Source type">
          <select name="sourceType">
            {SOURCE_TYPES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </Field>
        <label class="check">
          <input type="checkbox" name="syncEnabled" /> Sync on a schedule
        </label>
        <button type="submit" class="primary" disabled={add.busy}>
          Add source
        </button>
      </form>
      <ErrorNotice error={add.error ?? sources.error} />
      {job ? (
        <p class="status" data-status={job.status} aria-live="polite">
          First sync: {jobLabel(job)}
          {job.error ? ` — ${job.error.message}` : ''}
        </p>
      ) : null}
      {sources.data?.sources.length === 0 ? <p>No source yet: documents come from uploads only.</p> : null}
      {sources.data?.sources.length ? (
        <table>
          <caption>Sources and their sync health</caption>
          <thead>
            <tr>
              <th scope="col">URL</th>
              <th scope="col">Type</th>
              <th scope="col">Health</th>
              <th scope="col">Items</th>
              <th scope="col">Last synced</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {sources.data.sources.map((s) => (
              <SourceRow key={s.id} kbId={kbId} source={s} onChanged={refresh} />
            ))}
          </tbody>
        </table>
      ) : null}
    </section>
  );
}
