import { useEffect, useState } from 'preact/hooks';

import { api, conversationMessages, type Takeover } from '../api';
import { ErrorNotice, Field, formatDate, Link, Page, useAction, useLoad } from '../ui';

/** The inbox item's takeover (the SDK's type predates the field). */
const takeoverOf = (c: object) => (c as { takeover?: Takeover | null }).takeover ?? null;

/** The operator inbox: conversations of one agent, whatever their platform. */
export function ConversationsPage() {
  const agents = useLoad(() => api.listAgents({ limit: 100 }), []);
  const [agentId, setAgentId] = useState<string>('');
  const chosen = agentId || agents.data?.bots[0]?.id || '';
  const inbox = useLoad(async () => (chosen ? api.listAgentConversations(chosen, { limit: 100 }) : null), [chosen]);
  return (
    <Page title="Conversations">
      <ErrorNotice error={agents.error} />
      <Field label="Agent">
        <select value={chosen} onChange={(e) => setAgentId((e.currentTarget as HTMLSelectElement).value)}>
          {agents.data?.bots.map((a) => (
            <option key={a.id} value={a.id}>
              {a.name}
            </option>
          ))}
        </select>
      </Field>
      <button type="button" onClick={inbox.reload}>
        Refresh
      </button>
      <ErrorNotice error={inbox.error} />
      <table>
        <caption>Most recently active first{inbox.data ? ` (${inbox.data.total})` : ''}</caption>
        <thead>
          <tr>
            <th scope="col">Title</th>
            <th scope="col">Platform</th>
            <th scope="col">Messages</th>
            <th scope="col">Updated</th>
          </tr>
        </thead>
        <tbody>
          {inbox.data?.conversations.map((c) => (
            <tr key={c.id}>
              <td>
                <Link to={`/conversations/${chosen}/${c.id}`}>{c.title ?? 'Untitled conversation'}</Link>
              </td>
              <td>
                {c.platform} {takeoverOf(c) ? <span class="badge pending">with {takeoverOf(c)!.operator.displayName}</span> : null}
              </td>
              <td>{c.messageCount}</td>
              <td>{formatDate(c.updatedAt)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Page>
  );
}

/** One conversation: its messages (refreshed while open), takeover and release, and the operator's replies. */
export function ConversationPage({ agentId, conversationId }: { agentId: string; conversationId: string }) {
  const messages = useLoad(() => conversationMessages(agentId, conversationId), [agentId, conversationId]);
  // The platform remembers the takeover (the agent is paused meanwhile); the local flag answers at once on a click.
  const [takenOverHere, setTakenOver] = useState<boolean | null>(null);
  const takeover = messages.data?.takeover ?? null;
  const takenOver = takenOverHere ?? takeover !== null;
  const [draft, setDraft] = useState('');
  useEffect(() => {
    const timer = setInterval(messages.reload, 3000);
    return () => clearInterval(timer);
  }, [messages.reload]);

  const toggle = useAction(async () => {
    await api.sendOperatorEvent(agentId, conversationId, takenOver ? 'conversation.released' : 'conversation.takeover');
    setTakenOver(!takenOver);
    messages.reload();
  });
  const send = useAction(async () => {
    await api.sendOperatorEvent(agentId, conversationId, 'operator.message', draft);
    setDraft('');
    messages.reload();
  });

  return (
    <Page title="Conversation">
      <p>
        <Link to="/conversations">All conversations</Link>
      </p>
      <div class="row">
        <button type="button" class={takenOver ? '' : 'primary'} disabled={toggle.busy} onClick={() => void toggle.run()}>
          {takenOver ? 'Release to the agent' : 'Take over'}
        </button>
        {takenOver ? (
          <span role="status" class="badge published">
            You are handling this conversation
            {takeover && takeover.operator.displayName !== api.session?.user.displayName
              ? ` (taken over by ${takeover.operator.displayName})`
              : ''}
          </span>
        ) : null}
      </div>
      <ErrorNotice error={toggle.error ?? messages.error} />
      <ol class="messages" aria-label="Messages" aria-live="polite">
        {messages.data?.messages.map((m) => (
          <li key={m.id} class={`message ${m.operator ? 'operator' : m.role}`}>
            <span class="who">{m.operator ? `${m.operator.displayName} (operator)` : m.role === 'user' ? 'Visitor' : 'Agent'}</span>
            <p>{m.content}</p>
            <small>
              {formatDate(m.createdAt)}
              {m.heldForOperator ? ' · waiting for an operator (the agent did not answer)' : ''}
            </small>
          </li>
        ))}
      </ol>
      {takenOver ? (
        <form
          class="card"
          onSubmit={(e) => {
            e.preventDefault();
            void send.run();
          }}
        >
          <Field label="Reply as operator">
            <textarea
              rows={3}
              required
              maxLength={10000}
              value={draft}
              onInput={(e) => setDraft((e.currentTarget as HTMLTextAreaElement).value)}
            />
          </Field>
          <ErrorNotice error={send.error} />
          <button type="submit" class="primary" disabled={send.busy || !draft.trim()}>
            Send
          </button>
        </form>
      ) : (
        <p class="hint">Take the conversation over to reply to the visitor yourself: the agent stops answering until you release it.</p>
      )}
    </Page>
  );
}
