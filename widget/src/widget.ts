/**
 * The chat widget's behaviour: a visitor (anonymousId kept in localStorage) chats with one published agent
 * over the public lane, with streamed answers, attachments, rate-limit waits, operator presence and the
 * visitor's past conversations.
 */
import { type PublicAgent, PublicApiError, PublicChatClient, type PublicMessage, type UploadedAttachment } from './api';
import { el, uuid, visitorStorage } from './dom';
import { type OperatorNotice, presenceNotice } from './presence';
import { applyStyles, applyTheme } from './styles';
import { buildView, messageElement, type MessageKind, sourcesElement, type View } from './view';

const MAX_ATTACHMENTS = 5;

export interface WidgetOptions {
  platformOrigin: string;
  slug: string;
  /** Name shown before the agent's own name has loaded. */
  label?: string;
}

export function mountWidget(options: WidgetOptions): ChatWidget {
  const host = document.createElement('div');
  host.setAttribute('data-agent-platform-widget', options.slug);
  document.body.append(host);
  return new ChatWidget(host, options);
}

export class ChatWidget {
  private readonly view: View;
  private readonly client: PublicChatClient;
  private readonly storage = visitorStorage();
  private readonly conversationKey: string;
  private agent: PublicAgent | null = null;
  private agentName: string;
  private conversationId: string | null = null;
  private started: Promise<void> | null = null;
  /** The agent's public config, asked for at mount so that its theme shows before the chat is opened. */
  private prefetched: Promise<PublicAgent> | null;
  private attachments: UploadedAttachment[] = [];
  private uploads = 0;
  private sending = false;
  private waitTimer: number | undefined;
  private events: EventSource | null = null;
  private takeoverStatus = '';
  private readonly shownMessageIds = new Set<string>();

  constructor(host: HTMLElement, options: WidgetOptions) {
    const root = host.attachShadow({ mode: 'open' });
    applyStyles(root);
    this.agentName = options.label || 'our assistant';
    this.view = buildView(root, host, this.agentName);
    const idKey = `agent-platform:${options.platformOrigin}:anonymousId`;
    let anonymousId = this.storage.getItem(idKey);
    if (!anonymousId) {
      anonymousId = uuid();
      this.storage.setItem(idKey, anonymousId);
    }
    this.conversationKey = `agent-platform:${options.platformOrigin}:${options.slug}:conversationId`;
    this.client = new PublicChatClient(options.platformOrigin, options.slug, anonymousId);
    this.prefetched = this.client.agent();
    // A failure shows when the chat is opened (start() asks again).
    this.prefetched.then(
      (agent) => applyTheme(host, agent.theme),
      () => undefined,
    );
    this.bind();
  }

  private bind(): void {
    const v = this.view;
    v.bubble.addEventListener('click', () => (v.panel.hidden ? this.open() : this.close()));
    v.closeButton.addEventListener('click', () => this.close());
    v.newButton.addEventListener('click', () => void this.guard(() => this.startNewConversation()));
    v.historyButton.addEventListener('click', () => void this.guard(() => this.toggleHistory()));
    v.panel.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape') return;
      e.preventDefault();
      if (!v.history.hidden) this.hideHistory(true);
      else this.close();
    });
    v.input.addEventListener('keydown', (e) => {
      // Enter sends, Shift+Enter keeps a line break; IME composition must not send half a word.
      if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
        e.preventDefault();
        v.form.requestSubmit();
      }
    });
    v.form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.guard(() => this.send());
    });
    v.attachButton.addEventListener('click', () => v.fileInput.click());
    v.fileInput.addEventListener('change', () => {
      const files = Array.from(v.fileInput.files ?? []);
      v.fileInput.value = '';
      void this.guard(() => this.uploadFiles(files));
    });
  }

  open(): void {
    const v = this.view;
    v.panel.hidden = false;
    v.bubble.setAttribute('aria-expanded', 'true');
    v.bubble.setAttribute('aria-label', `Close chat with ${this.agentName}`);
    v.input.focus();
    // Retried on the next open when the agent could not be loaded (offline, or the platform was down).
    this.started ??= this.guard(() => this.start()).then(() => {
      if (!this.agent) this.started = null;
    });
  }

  close(): void {
    const v = this.view;
    v.panel.hidden = true;
    v.bubble.setAttribute('aria-expanded', 'false');
    v.bubble.setAttribute('aria-label', `Open chat with ${this.agentName}`);
    v.bubble.focus();
  }

  /** Shows any failure in the notice instead of losing it in the console. */
  private async guard(work: () => Promise<void>): Promise<void> {
    try {
      await work();
    } catch (e) {
      this.showError(e);
    }
  }

  private async start(): Promise<void> {
    const prefetched = this.prefetched;
    this.prefetched = null;
    this.agent = await (prefetched ?? this.client.agent());
    applyTheme(this.view.host, this.agent.theme);
    this.agentName = this.agent.name;
    this.view.title.textContent = this.agent.name;
    this.view.bubble.setAttribute('aria-label', `Close chat with ${this.agentName}`);
    this.view.attachButton.hidden = !this.agent.fileUploadsEnabled;
    const stored = this.storage.getItem(this.conversationKey);
    if (stored) {
      try {
        await this.showConversation(stored);
        return;
      } catch (e) {
        // Deleted, or the visitor's storage is from another platform: start over rather than show an error.
        if (!(e instanceof PublicApiError && e.status === 404)) throw e;
      }
    }
    await this.startNewConversation();
  }

  private async startNewConversation(): Promise<void> {
    const started = await this.client.startConversation();
    this.setConversation(started.conversationId);
    this.clearLog();
    if (started.welcomeMessage) this.addMessage('assistant', this.agentName, started.welcomeMessage);
    this.hideHistory(false);
    this.view.input.focus();
  }

  private async showConversation(conversationId: string): Promise<void> {
    const messages = await this.client.messages(conversationId);
    this.setConversation(conversationId);
    this.clearLog();
    for (const m of messages) this.addStoredMessage(m);
  }

  private setConversation(id: string): void {
    this.conversationId = id;
    this.storage.setItem(this.conversationKey, id);
    this.view.panel.setAttribute('data-conversation-id', id);
    this.subscribePresence(id);
  }

  private clearLog(): void {
    this.view.log.replaceChildren();
    this.view.presence.textContent = '';
    this.takeoverStatus = '';
    this.shownMessageIds.clear();
  }

  private addStoredMessage(m: PublicMessage): void {
    if (m.role === 'system') return;
    this.shownMessageIds.add(m.id);
    const files = (m.attachments ?? []).map((a) => a.filename);
    if (m.role === 'user') return void this.addMessage('user', 'You', m.content, files);
    if (m.operator) return void this.addMessage('operator', `${m.operator.displayName} (team)`, m.content);
    const { node } = this.addMessage('assistant', this.agentName, m.content);
    const sources = sourcesElement(m.sources ?? []);
    if (sources) node.append(sources);
  }

  private addMessage(kind: MessageKind, who: string, content: string, files: string[] = []) {
    const message = messageElement(kind, who, content, files);
    this.view.log.append(message.node);
    this.view.log.scrollTop = this.view.log.scrollHeight;
    return message;
  }

  private async send(): Promise<void> {
    const v = this.view;
    const text = v.input.value.trim();
    if (!text || this.sending || this.waitTimer !== undefined) return;
    if (this.uploads > 0) return this.notify('Please wait until your file has finished uploading.');
    await this.started;
    if (!this.conversationId) await this.startNewConversation();
    const attachments = this.attachments;
    this.sending = true;
    v.sendButton.disabled = true;
    this.notify('');
    v.input.value = '';
    const question = this.addMessage(
      'user',
      'You',
      text,
      attachments.map((a) => a.originalFilename),
    );
    const answer = this.addMessage('assistant', this.agentName, '');
    answer.node.setAttribute('aria-busy', 'true');
    try {
      const result = await this.client.chat(this.conversationId!, text, attachments, this.agent?.streamingEnabled ?? true, (token) => {
        // One text node per piece: the visitor sees the answer grow as it streams.
        answer.text.append(document.createTextNode(token));
        v.log.scrollTop = v.log.scrollHeight;
      });
      if (result.operatorTakeover) {
        // An operator has the conversation: no agent answer; their reply arrives on the presence stream.
        answer.node.remove();
        this.notify('Your message was passed to the person helping you.', 'status');
      }
      const sources = sourcesElement(result.sources);
      if (sources) answer.node.append(sources);
      this.attachments = [];
      this.renderAttachments();
    } catch (e) {
      if (!answer.text.textContent) {
        // Not sent (refused or failed before any answer): the question goes back into the box to retry.
        answer.node.remove();
        question.node.remove();
        if (!v.input.value) v.input.value = text;
      }
      throw e;
    } finally {
      answer.node.removeAttribute('aria-busy');
      this.sending = false;
      v.sendButton.disabled = this.waitTimer !== undefined;
    }
  }

  private async uploadFiles(files: File[]): Promise<void> {
    for (const file of files) {
      if (this.attachments.length >= MAX_ATTACHMENTS) return this.notify(`You can send up to ${MAX_ATTACHMENTS} files with a message.`);
      this.uploads++;
      this.notify(`Uploading ${file.name}\u2026`, 'status');
      try {
        this.attachments.push(await this.client.upload(file));
        this.notify('');
        this.renderAttachments();
      } catch (e) {
        if (e instanceof PublicApiError && e.status === 413)
          return this.notify(`\u201c${file.name}\u201d is too large to send. Please choose a smaller file.`);
        if (e instanceof PublicApiError && e.status === 415)
          return this.notify(
            `\u201c${file.name}\u201d can\u2019t be sent: this type of file isn\u2019t supported. Images, PDF, text, audio and video files work.`,
          );
        if (e instanceof PublicApiError && e.status === 403) return this.notify('This assistant doesn\u2019t accept files.');
        if (e instanceof PublicApiError && e.status === 429)
          return this.notify(`Too many files for now. Please wait ${e.retryAfterSeconds ?? 60} seconds before attaching another.`);
        throw e;
      } finally {
        this.uploads--;
      }
    }
  }

  private renderAttachments(): void {
    const list = this.view.pending;
    list.replaceChildren(
      ...this.attachments.map((a) => {
        const remove = el('button', { type: 'button', 'aria-label': `Remove ${a.originalFilename}` }, '\u00d7');
        remove.addEventListener('click', () => {
          this.attachments = this.attachments.filter((x) => x !== a);
          this.renderAttachments();
          this.view.input.focus();
        });
        return el('li', {}, a.originalFilename, remove);
      }),
    );
  }

  private async toggleHistory(): Promise<void> {
    if (!this.view.history.hidden) return this.hideHistory(true);
    const v = this.view;
    const conversations = await this.client.conversations();
    v.historyList.replaceChildren(
      ...conversations.map((c) => {
        const when = new Date(c.updatedAt).toLocaleString();
        const button = el(
          'button',
          { type: 'button', 'aria-current': c.id === this.conversationId ? 'true' : undefined },
          c.title || 'Conversation',
          el('small', {}, `${when} \u00b7 ${c.messageCount} messages`),
        );
        button.addEventListener(
          'click',
          () =>
            void this.guard(async () => {
              await this.showConversation(c.id);
              this.hideHistory(false);
              v.input.focus();
            }),
        );
        return el('li', {}, button);
      }),
    );
    if (!conversations.length) v.historyList.append(el('li', {}, 'No earlier conversations yet.'));
    v.history.hidden = false;
    v.log.hidden = true;
    v.historyButton.setAttribute('aria-expanded', 'true');
    (v.historyList.querySelector('button') ?? v.historyButton).focus();
  }

  private hideHistory(returnFocus: boolean): void {
    const v = this.view;
    v.history.hidden = true;
    v.log.hidden = false;
    v.historyButton.setAttribute('aria-expanded', 'false');
    if (returnFocus) v.historyButton.focus();
  }

  /** Operator presence (spec 6): joins, typing, takeover and the operator's own messages. */
  private subscribePresence(conversationId: string): void {
    this.events?.close();
    this.view.panel.removeAttribute('data-presence');
    if (typeof EventSource === 'undefined') return;
    const events = new EventSource(this.client.eventsUrl(conversationId));
    this.events = events;
    events.onopen = () => this.view.panel.setAttribute('data-presence', 'connected');
    events.onmessage = (e: MessageEvent<string>) => {
      if (this.events !== events) return;
      let notice: OperatorNotice;
      try {
        notice = presenceNotice(JSON.parse(e.data));
      } catch {
        return;
      }
      if (notice.message && !this.shownMessageIds.has(notice.message.id)) {
        this.shownMessageIds.add(notice.message.id);
        this.addMessage('operator', `${notice.message.from} (team)`, notice.message.text);
      }
      if (notice.takenOver !== undefined) {
        this.takeoverStatus = notice.takenOver ? notice.status! : '';
        this.view.panel.toggleAttribute('data-taken-over', notice.takenOver);
      }
      // A takeover stays on screen once a typing indicator or the operator's message has replaced it.
      if (notice.status !== undefined) this.view.presence.textContent = notice.status || this.takeoverStatus;
    };
  }

  private showError(e: unknown): void {
    if (e instanceof PublicApiError && e.status === 429) return this.waitBeforeSending(e.retryAfterSeconds ?? 60);
    if (e instanceof PublicApiError && e.status === 404) return this.notify('This chat is not available right now.');
    if (e instanceof PublicApiError) return this.notify(`Sorry, something went wrong: ${e.message}`);
    this.notify('Sorry, the chat could not reach the server. Please check your connection and try again.');
  }

  /** 429: the send button stays off for the Retry-After wait, with the seconds left on screen. */
  private waitBeforeSending(seconds: number): void {
    const v = this.view;
    const until = Date.now() + seconds * 1000;
    window.clearInterval(this.waitTimer);
    const tick = () => {
      const left = Math.ceil((until - Date.now()) / 1000);
      if (left <= 0) {
        window.clearInterval(this.waitTimer);
        this.waitTimer = undefined;
        v.sendButton.disabled = false;
        v.panel.removeAttribute('data-rate-limited');
        return this.notify('');
      }
      v.notice.textContent = `You\u2019re sending messages too quickly. Please wait ${left} second${left === 1 ? '' : 's'} before sending again.`;
    };
    v.sendButton.disabled = true;
    v.panel.setAttribute('data-rate-limited', String(seconds));
    this.waitTimer = window.setInterval(tick, 1000);
    tick();
  }

  private notify(text: string, role: 'alert' | 'status' = 'alert'): void {
    this.view.notice.setAttribute('role', role);
    this.view.notice.textContent = text;
  }
}
