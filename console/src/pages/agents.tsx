import { api } from '../api';
import { navigate } from '../router';
import { ErrorNotice, Field, formatDate, Link, Page, useAction, useLoad } from '../ui';

export function AgentsPage() {
  const agents = useLoad(() => api.listAgents({ limit: 100 }), []);
  const kbs = useLoad(() => api.listKnowledgeBases({ limit: 100 }), []);
  const create = useAction(async (form: HTMLFormElement) => {
    const data = new FormData(form);
    const bot = await api.createAgent({
      name: String(data.get('name')),
      description: String(data.get('description') ?? ''),
      systemPrompt: String(data.get('systemPrompt') ?? '') || undefined,
      knowledgeBaseIds: data.getAll('knowledgeBaseIds').map(String),
      isDraft: true,
    });
    navigate(`/agents/${bot.id}`);
  });
  return (
    <Page title="Agents">
      <section aria-labelledby="agent-new">
        <h2 id="agent-new">New agent</h2>
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void create.run(e.currentTarget);
          }}
        >
          <Field label="Name">
            <input name="name" required maxLength={255} />
          </Field>
          <Field label="Description">
            <input name="description" maxLength={2000} />
          </Field>
          <Field label="System prompt">
            <textarea name="systemPrompt" rows={4} maxLength={50000} />
          </Field>
          <fieldset>
            <legend>Knowledge bases</legend>
            {kbs.data?.knowledgeBases.length === 0 ? <p>Create a knowledge base first.</p> : null}
            {kbs.data?.knowledgeBases.map((kb) => (
              <label key={kb.id} class="check">
                <input type="checkbox" name="knowledgeBaseIds" value={kb.id} /> {kb.name}
              </label>
            ))}
          </fieldset>
          <p class="hint">The agent starts as a draft; publish it from its page once a knowledge base holds an indexed document.</p>
          <ErrorNotice error={create.error} />
          <button type="submit" class="primary" disabled={create.busy}>
            Create agent
          </button>
        </form>
      </section>
      <section aria-labelledby="agent-list">
        <h2 id="agent-list">Your agents</h2>
        <ErrorNotice error={agents.error} />
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Model</th>
              <th scope="col">Public link</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {agents.data?.bots.map((a) => (
              <tr key={a.id}>
                <td>
                  <Link to={`/agents/${a.id}`}>{a.name}</Link>
                </td>
                <td>
                  <span class={`badge ${a.status}`}>{a.status}</span>
                </td>
                <td>{a.model}</td>
                <td>{a.slug ?? '—'}</td>
                <td>{formatDate(a.updatedAt)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </Page>
  );
}
