import { PlatformClient, type Session, type SessionStore } from '../../sdk';

const KEY = 'agent-platform.session';

/** The session survives reloads in localStorage (the console is same-origin with the API). */
const localSessions: SessionStore = {
  load() {
    try {
      const raw = localStorage.getItem(KEY);
      return raw ? (JSON.parse(raw) as Session) : null;
    } catch {
      return null;
    }
  },
  save(session) {
    if (session) localStorage.setItem(KEY, JSON.stringify(session));
    else localStorage.removeItem(KEY);
  },
};

export const api = new PlatformClient({ sessions: localSessions });
