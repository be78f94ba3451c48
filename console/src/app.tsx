import { useEffect, useState } from 'preact/hooks';

import { api } from './api';
import { AgentDetailPage } from './pages/agent-detail';
import { AgentsPage } from './pages/agents';
import { AnalyticsPage } from './pages/analytics';
import { AgentChannelsPage } from './pages/channels';
import { ContactsPage } from './pages/contacts';
import { ConversationPage, ConversationsPage } from './pages/conversations';
import { EntityPage, GraphPage } from './pages/graph';
import { GraphSuggestionsPage } from './pages/graph-suggestions';
import { KnowledgeBasePage, KnowledgePage } from './pages/knowledge';
import { SearchPage } from './pages/search';
import { SettingsPage } from './pages/settings';
import { SignInPage } from './pages/sign-in';
import { match, navigate, useRoute } from './router';
import { Link } from './ui';

const NAV: [string, string][] = [
  ['/knowledge', 'Knowledge'],
  ['/agents', 'Agents'],
  ['/conversations', 'Conversations'],
  ['/search', 'Search'],
  ['/contacts', 'Contacts'],
  ['/analytics', 'Analytics'],
  ['/settings', 'Organization'],
];

function routeTo(route: string) {
  let p;
  if (route === '/knowledge') return <KnowledgePage />;
  if ((p = match('/knowledge/:id', route))) return <KnowledgeBasePage id={p.id!} />;
  if ((p = match('/knowledge/:id/graph', route))) return <GraphPage kbId={p.id!} />;
  if ((p = match('/knowledge/:id/graph/suggestions', route))) return <GraphSuggestionsPage kbId={p.id!} />;
  if ((p = match('/knowledge/:id/graph/entities/:entityId', route))) return <EntityPage kbId={p.id!} entityId={p.entityId!} />;
  if (route === '/agents') return <AgentsPage />;
  if ((p = match('/agents/:id', route))) return <AgentDetailPage id={p.id!} />;
  if ((p = match('/agents/:id/channels', route))) return <AgentChannelsPage id={p.id!} />;
  if (route === '/conversations') return <ConversationsPage />;
  if ((p = match('/conversations/:agentId/:conversationId', route)))
    return <ConversationPage agentId={p.agentId!} conversationId={p.conversationId!} />;
  if (route === '/search') return <SearchPage />;
  if (route === '/contacts') return <ContactsPage />;
  if (route === '/analytics') return <AnalyticsPage />;
  if (route === '/settings') return <SettingsPage />;
  return null;
}

export function App() {
  const route = useRoute();
  const [signedIn, setSignedIn] = useState(() => api.session !== null);
  useEffect(() => {
    api.http.onSignedOut = () => setSignedIn(false);
  }, []);
  useEffect(() => {
    if (!signedIn && route !== '/sign-in') navigate('/sign-in');
    else if (signedIn && (route === '/' || route === '/sign-in')) navigate('/knowledge');
  }, [signedIn, route]);

  if (!signedIn) {
    return (
      <main id="main" class="narrow">
        <SignInPage onSignedIn={() => setSignedIn(true)} />
      </main>
    );
  }
  const section = '/' + (route.split('/')[1] ?? '');
  const page = routeTo(route);
  const user = api.session?.user;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Agent Platform</span>
        <span class="who">
          {user?.displayName} · {user?.organizations[0]?.name}
        </span>
        <button
          type="button"
          onClick={() => {
            api.signOut();
            setSignedIn(false);
          }}
        >
          Sign out
        </button>
      </header>
      <div class="layout">
        <nav aria-label="Console sections">
          <ul>
            {NAV.map(([to, label]) => (
              <li key={to}>
                <Link to={to} aria-current={section === to ? 'page' : undefined}>
                  {label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {page ?? <p>This page does not exist.</p>}
        </main>
      </div>
    </>
  );
}
