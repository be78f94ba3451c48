/**
 * The widget's client of the public lane (spec 4.5, 6): anonymous, slug-based, no credentials. Every call is a
 * cross-origin fetch the platform answers with CORS headers.
 */
import { readSse } from './sse';
import type { WidgetTheme } from './styles';

export interface PublicAgent {
  name: string;
  description: string;
  streamingEnabled: boolean;
  fileUploadsEnabled: boolean;
  welcome: { mode: 'fixed' | 'generated'; message: string | null } | null;
  /** The widget channel's theme (colours, corner); absent from older platforms. */
  theme?: WidgetTheme;
}

export interface PublicConversation {
  id: string;
  title: string | null;
  messageCount: number;
  updatedAt: string;
}

export interface PublicMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  attachments?: { id: string; filename: string }[];
  operator?: { displayName: string };
  sources?: AnswerSource[];
}

/** The public lane does not send sources today (spec 6); shown when a platform version does. */
export interface AnswerSource {
  documentTitle?: string;
  title?: string;
  url?: string;
}

export interface UploadedAttachment {
  id: string;
  accessToken: string;
  originalFilename: string;
}

export interface ChatAnswer {
  conversationId: string;
  sources: AnswerSource[];
  /** An operator has the conversation: the message waits for them, the agent did not answer. */
  operatorTakeover?: boolean;
}

/** A refused call: status, the platform's message, and the wait a 429 asks for. */
export class PublicApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}

async function failure(res: Response): Promise<PublicApiError> {
  let message = res.statusText;
  try {
    const body = (await res.json()) as { message?: string; error?: string };
    message = body.message ?? body.error ?? message;
  } catch {
    // A body that is not JSON (a proxy's page) keeps the status text.
  }
  const retryAfter = Number(res.headers.get('Retry-After'));
  return new PublicApiError(res.status, message, Number.isFinite(retryAfter) && retryAfter > 0 ? Math.ceil(retryAfter) : null);
}

export class PublicChatClient {
  private readonly base: string;

  constructor(
    readonly platformOrigin: string,
    slug: string,
    readonly anonymousId: string,
  ) {
    this.base = `${platformOrigin}/api/public/agents/${encodeURIComponent(slug)}`;
  }

  private visitorQuery(extra = ''): string {
    return `?anonymousId=${encodeURIComponent(this.anonymousId)}${extra}`;
  }

  private async json<T>(path: string, init?: RequestInit): Promise<T> {
    const res = await fetch(this.base + path, { ...init, credentials: 'omit', mode: 'cors' });
    if (!res.ok) throw await failure(res);
    return (await res.json()) as T;
  }

  private send<T>(method: string, path: string, body: unknown): Promise<T> {
    return this.json<T>(path, { method, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  }

  agent(): Promise<PublicAgent> {
    return this.json('');
  }

  async startConversation(): Promise<{ conversationId: string; welcomeMessage: string | null }> {
    const r = await this.send<{ data: { conversationId: string; welcomeMessage: string | null } }>('POST', '/conversations', {
      anonymousId: this.anonymousId,
    });
    return r.data;
  }

  async conversations(): Promise<PublicConversation[]> {
    return (await this.json<{ conversations: PublicConversation[] }>(`/conversations${this.visitorQuery('&limit=20')}`)).conversations;
  }

  async messages(conversationId: string): Promise<PublicMessage[]> {
    const path = `/conversations/${encodeURIComponent(conversationId)}/messages${this.visitorQuery('&limit=100')}`;
    return (await this.json<{ messages: PublicMessage[] }>(path)).messages;
  }

  async upload(file: File): Promise<UploadedAttachment> {
    const form = new FormData();
    form.append('file', file, file.name);
    const r = await this.json<{ attachment?: UploadedAttachment } & Partial<UploadedAttachment>>(`/attachments${this.visitorQuery()}`, {
      method: 'POST',
      body: form,
    });
    return r.attachment ?? (r as UploadedAttachment);
  }

  /** The visitor's operator-presence stream (spec 6); EventSource reconnects by itself. */
  eventsUrl(conversationId: string): string {
    return `${this.base}/conversations/${encodeURIComponent(conversationId)}/events${this.visitorQuery()}`;
  }

  /**
   * Sends a message; `onToken` receives the answer piece by piece when the agent streams (SSE read from the
   * fetch body), or whole when it does not.
   */
  async chat(
    conversationId: string,
    message: string,
    attachments: UploadedAttachment[],
    stream: boolean,
    onToken: (token: string) => void,
  ): Promise<ChatAnswer> {
    const body = {
      message,
      conversationId,
      anonymousId: this.anonymousId,
      stream,
      ...(attachments.length ? { attachments: attachments.map((a) => ({ id: a.id, accessToken: a.accessToken })) } : {}),
    };
    const res = await fetch(`${this.base}/chat`, {
      method: 'POST',
      credentials: 'omit',
      mode: 'cors',
      headers: { 'Content-Type': 'application/json', Accept: stream ? 'text/event-stream' : 'application/json' },
      body: JSON.stringify(body),
    });
    if (!res.ok) throw await failure(res);
    if (!(res.headers.get('Content-Type') ?? '').startsWith('text/event-stream')) {
      const r = (await res.json()) as { response: string; conversationId: string; sources?: AnswerSource[]; operatorTakeover?: boolean };
      if (r.response) onToken(r.response);
      return { conversationId: r.conversationId, sources: r.sources ?? [], operatorTakeover: r.operatorTakeover === true };
    }
    let answer: ChatAnswer = { conversationId, sources: [] };
    await readSse(res, (frame) => {
      const f = frame as {
        token?: string;
        done?: boolean;
        sources?: AnswerSource[];
        operatorTakeover?: boolean;
        error?: string;
        message?: string;
      };
      if (typeof f.token === 'string') onToken(f.token);
      else if (f.done) answer = { conversationId, sources: f.sources ?? [], operatorTakeover: f.operatorTakeover === true };
      else if (f.error) throw new PublicApiError(500, f.message ?? f.error);
    });
    return answer;
  }
}
