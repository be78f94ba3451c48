import { useState } from 'preact/hooks';

import { api } from '../api';
import { ErrorNotice, Field, formatDate, Link, Page, useAction, useLoad } from '../ui';
import { PromptVersions } from './prompt-versions';

/** One agent: edit, publish (owners and admins publish without review), distribution link, versions. */
export function AgentDetailPage({ id }: { id: string }) {
  const agent = useLoad(() => api.getAgent(id), [id]);
  const kbs = useLoad(() => api.listKnowledgeBases({ limit: 100 }), []);
  const versions = useLoad(() => api.listAgentVersions(id), [id]);
  const a = agent.data;
  const [link, setLink] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () => {
    agent.reload();
    versions.reload();
  };

  const save = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    await api.updateAgent(id, {
      name: String(data.get('name')),
      description: String(data.get('description') ?? ''),
      systemPrompt: String(data.get('systemPrompt') ?? ''),
      knowledgeBaseIds: data.getAll('knowledgeBaseIds').map(String),
    });
    setNotice('Saved: a new version was recorded.');
    refresh();
  });
  // Owners and admins take a draft live at once; a member's publish submits it for review (docs/contracts.md).
  const publish = useAction(async () => {
    // A rejected agent leaves that state only through submit-review.
    const bot =
      a?.status === 'approved'
        ? (await api.publishAgent(id)).bot
        : a?.status === 'rejected'
          ? (await api.submitForReview(id)).bot
          : await api.updateAgent(id, { isDraft: false });
    setNotice(bot.status === 'published' ? 'Published: the agent is live.' : `Submitted: status is now ${bot.status}.`);
    refresh();
  });
  const review = useAction(async (decision: 'approve' | 'reject', feedback?: string) => {
    const { bot } = decision === 'approve' ? await api.approveAgent(id) : await api.rejectAgent(id, feedback ?? '');
    setNotice(`Review recorded: status is now ${bot.status}.`);
    refresh();
  });
  const [feedback, setFeedback] = useState('');
  const distribute = useAction(async () => {
    const d = await api.publishDistribution(id);
    setLink(new URL(d.url, location.origin).href);
    refresh();
  });

  const linked = new Set(a?.knowledgeBaseIds ?? []);
  return (
    <Page title={a ? `Agent: ${a.name}` : 'Agent'}>
      <p>
        <Link to="/agents">All agents</Link> · <Link to={`/agents/${id}/channels`}>Channels</Link>
      </p>
      <ErrorNotice error={agent.error} />
      {a ? (
        <>
          <section aria-labelledby="publish-h" class="card">
            <h2 id="publish-h">Publishing</h2>
            <p>
              Status:{' '}
              <strong class={`badge ${a.status}`} data-testid="agent-status">
                {a.status}
              </strong>
              {a.reviewFeedback ? ` — review feedback: ${a.reviewFeedback}` : ''}
            </p>
            {a.status === 'pending_review' ? (
              <div class="row">
                <button type="button" disabled={review.busy} onClick={() => void review.run('approve')}>
                  Approve
                </button>
                <Field label="Feedback for the author">
                  <input value={feedback} maxLength={5000} onInput={(e) => setFeedback((e.currentTarget as HTMLInputElement).value)} />
                </Field>
                <button type="button" disabled={review.busy || !feedback.trim()} onClick={() => void review.run('reject', feedback)}>
                  Reject
                </button>
              </div>
            ) : null}
            <div class="row">
              {a.status === 'pending_review' ? null : a.status !== 'published' ? (
                <button type="button" class="primary" disabled={publish.busy} onClick={() => void publish.run()}>
                  {a.status === 'rejected' ? 'Submit for review' : 'Publish'}
                </button>
              ) : (
                <button type="button" disabled={distribute.busy} onClick={() => void distribute.run()}>
                  {a.slug ? 'Update distribution link' : 'Create distribution link'}
                </button>
              )}
            </div>
            {notice ? <p role="status">{notice}</p> : null}
            {link || a.slug ? (
              <p>
                Public link: <code data-testid="distribution-link">{link ?? `/api/public/agents/${a.slug}`}</code>
              </p>
            ) : null}
            <ErrorNotice error={publish.error ?? review.error ?? distribute.error} />
          </section>
          <section aria-labelledby="edit-h">
            <h2 id="edit-h">Settings</h2>
            <form
              class="card"
              key={a.updatedAt}
              onSubmit={(e) => {
                e.preventDefault();
                void save.run(e.currentTarget);
              }}
            >
              <Field label="Name">
                <input name="name" required maxLength={255} defaultValue={a.name} />
              </Field>
              <Field label="Description">
                <input name="description" maxLength={2000} defaultValue={a.description} />
              </Field>
              <Field label="System prompt">
                <textarea name="systemPrompt" rows={5} maxLength={50000} defaultValue={a.systemPrompt ?? ''} />
              </Field>
              <fieldset>
                <legend>Knowledge bases</legend>
                {kbs.data?.knowledgeBases.map((kb) => (
                  <label key={kb.id} class="check">
                    <input type="checkbox" name="knowledgeBaseIds" value={kb.id} defaultChecked={linked.has(kb.id)} /> {kb.name}
                  </label>
                ))}
              </fieldset>
              <ErrorNotice error={save.error} />
              <button type="submit" disabled={save.busy}>
                Save changes
              </button>
            </form>
          </section>
          <PromptVersions agentId={id} />
          <section aria-labelledby="versions-h">
            <h2 id="versions-h">Agent versions</h2>
            <ErrorNotice error={versions.error} />
            <ol class="versions">
              {versions.data?.versions.map((v) => (
                <li key={v.version}>
                  <strong>v{v.version}</strong> {v.notes} <small>{formatDate(v.createdAt)}</small>
                </li>
              ))}
            </ol>
          </section>
        </>
      ) : null}
    </Page>
  );
}
