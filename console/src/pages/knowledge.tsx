import { useState } from 'preact/hooks';

import type { JobEvent } from '../../../sdk';
import { api } from '../api';
import { navigate } from '../router';
import { describeError, ErrorNotice, Field, formatDate, formValues, Link, Page, useAction, useLoad } from '../ui';
import { KnowledgeSources } from './sources';

export function KnowledgePage() {
  const list = useLoad(() => api.listKnowledgeBases({ limit: 100 }), []);
  const create = useAction(async (v: Record<string, string>) => {
    const { knowledgeBase } = await api.createKnowledgeBase({ name: v.name!, description: v.description || undefined });
    navigate(`/knowledge/${knowledgeBase.id}`);
  });
  return (
    <Page title="Knowledge bases">
      <section aria-labelledby="kb-new">
        <h2 id="kb-new">New knowledge base</h2>
        <form class="card inline" onSubmit={(e) => void create.run(formValues(e))}>
          <Field label="Name">
            <input name="name" required maxLength={255} />
          </Field>
          <Field label="Description">
            <input name="description" maxLength={2000} />
          </Field>
          <button type="submit" class="primary" disabled={create.busy}>
            Create knowledge base
          </button>
        </form>
        <ErrorNotice error={create.error} />
      </section>
      <section aria-labelledby="kb-list">
        <h2 id="kb-list">Your knowledge bases</h2>
        <ErrorNotice error={list.error} />
        {list.data?.knowledgeBases.length === 0 ? <p>No knowledge base yet.</p> : null}
        <ul class="cards">
          {list.data?.knowledgeBases.map((kb) => (
            <li key={kb.id} class="card">
              <Link to={`/knowledge/${kb.id}`}>{kb.name}</Link>
              <p>{kb.description}</p>
              <small>Created {formatDate(kb.createdAt)}</small>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}

interface Upload {
  name: string;
  event: JobEvent | null;
  error?: string;
  /** The knowledge base already held these bytes: the existing document was returned, nothing was queued. */
  duplicate?: boolean;
}

/** One knowledge base: its documents, uploads by drag and drop or the file picker, live ingestion progress. */
export function KnowledgeBasePage({ id }: { id: string }) {
  const kb = useLoad(() => api.getKnowledgeBase(id), [id]);
  const docs = useLoad(() => api.listDocuments(id, { limit: 200 }), [id]);
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [dragging, setDragging] = useState(false);

  const update = (name: string, patch: Partial<Upload>) => setUploads((all) => all.map((u) => (u.name === name ? { ...u, ...patch } : u)));

  async function upload(file: File) {
    setUploads((all) => [...all.filter((u) => u.name !== file.name), { name: file.name, event: null }]);
    try {
      const { jobId } = await api.uploadDocument(id, file, file.name);
      docs.reload();
      if (!jobId) return update(file.name, { duplicate: true });
      const last = await api.watchJob(jobId, (event) => update(file.name, { event }));
      update(file.name, { event: last });
    } catch (e) {
      update(file.name, { error: describeError(e) });
    }
    docs.reload();
  }
  const uploadAll = (files: FileList | null | undefined) => {
    for (const f of Array.from(files ?? [])) void upload(f);
  };

  return (
    <Page title={kb.data ? `Knowledge base: ${kb.data.knowledgeBase.name}` : 'Knowledge base'}>
      <p>
        <Link to="/knowledge">All knowledge bases</Link> · <Link to={`/knowledge/${id}/graph`}>Knowledge graph</Link>
      </p>
      <ErrorNotice error={kb.error} />
      <section aria-labelledby="upload-h">
        <h2 id="upload-h">Add documents</h2>
        <div
          class={`dropzone${dragging ? ' over' : ''}`}
          data-testid="dropzone"
          onDragOver={(e) => {
            e.preventDefault();
            setDragging(true);
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault();
            setDragging(false);
            uploadAll(e.dataTransfer?.files);
          }}
        >
          <p>Drop files here (PDF, Word, text, Markdown, CSV, HTML, images, audio, video)</p>
          <label class="button">
            Choose files
            <input
              type="file"
              multiple
              class="visually-hidden"
              onChange={(e) => {
                uploadAll((e.currentTarget as HTMLInputElement).files);
                (e.currentTarget as HTMLInputElement).value = '';
              }}
            />
          </label>
        </div>
        <ul class="uploads" aria-live="polite">
          {uploads.map((u) => (
            <li key={u.name}>
              <span class="name">{u.name}</span>{' '}
              {u.error ? (
                <span class="error">{u.error}</span>
              ) : u.duplicate ? (
                <span class="status">already in this knowledge base (same content)</span>
              ) : (
                <>
                  <progress max={100} value={u.event?.progress ?? 0} aria-label={`Ingestion of ${u.name}`} />{' '}
                  <span class="status" data-status={u.event?.status ?? 'uploading'}>
                    {u.event
                      ? `${u.event.status}${u.event.stepLabel ? ` · ${u.event.stepLabel}` : ''} (${u.event.progress}%)`
                      : 'uploading'}
                    {u.event?.error ? ` — ${u.event.error.message}` : ''}
                  </span>
                </>
              )}
            </li>
          ))}
        </ul>
      </section>
      <KnowledgeSources kbId={id} onSynced={docs.reload} />
      <section aria-labelledby="docs-h">
        <h2 id="docs-h">Documents</h2>
        <ErrorNotice error={docs.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">Title</th>
              <th scope="col">Type</th>
              <th scope="col">Size</th>
              <th scope="col">Status</th>
              <th scope="col">Added</th>
            </tr>
          </thead>
          <tbody>
            {docs.data?.documents.map((d) => (
              <tr key={d.id}>
                <td>{d.title}</td>
                <td>{d.mimeType}</td>
                <td>{Math.ceil(d.fileSizeBytes / 1024)} KB</td>
                <td>
                  <span class={`badge ${d.processingStatus}`}>{d.processingStatus}</span>
                </td>
                <td>{formatDate(d.createdAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Page>
  );
}
