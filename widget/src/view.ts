/** The widget's markup inside its shadow root: a bubble button and a non-modal dialog with a live message log. */
import type { AnswerSource } from './api';
import { chatIcon, el } from './dom';

export interface View {
  host: HTMLElement;
  bubble: HTMLButtonElement;
  panel: HTMLElement;
  title: HTMLHeadingElement;
  historyButton: HTMLButtonElement;
  newButton: HTMLButtonElement;
  closeButton: HTMLButtonElement;
  presence: HTMLElement;
  history: HTMLElement;
  historyList: HTMLUListElement;
  log: HTMLElement;
  notice: HTMLElement;
  pending: HTMLUListElement;
  form: HTMLFormElement;
  input: HTMLTextAreaElement;
  attachButton: HTMLButtonElement;
  fileInput: HTMLInputElement;
  sendButton: HTMLButtonElement;
}

export function buildView(root: ShadowRoot, host: HTMLElement, agentLabel: string): View {
  const bubble = el('button', {
    class: 'bubble',
    type: 'button',
    'aria-label': `Open chat with ${agentLabel}`,
    'aria-expanded': 'false',
    'aria-controls': 'ap-panel',
  });
  bubble.append(chatIcon());
  const title = el('h2', { id: 'ap-title' }, agentLabel);
  const historyButton = el(
    'button',
    { type: 'button', class: 'history-toggle', 'aria-expanded': 'false', 'aria-controls': 'ap-history' },
    'Past chats',
  );
  const newButton = el('button', { type: 'button', 'aria-label': 'Start a new conversation' }, 'New');
  const closeButton = el('button', { type: 'button', 'aria-label': 'Close chat' }, '\u00d7');
  const presence = el('div', { class: 'presence', role: 'status', 'aria-live': 'polite' });
  const historyList = el('ul');
  const history = el(
    'nav',
    { class: 'history', id: 'ap-history', 'aria-labelledby': 'ap-history-title', hidden: true },
    el('h3', { id: 'ap-history-title' }, 'Your past conversations'),
    historyList,
  );
  const log = el('div', { class: 'log', role: 'log', 'aria-live': 'polite', 'aria-label': 'Conversation', tabindex: '0' });
  const notice = el('div', { class: 'notice', role: 'alert' });
  const pending = el('ul', { class: 'pending', 'aria-label': 'Files to send' });
  const input = el('textarea', { id: 'ap-input', rows: '2', placeholder: 'Type your message', autocomplete: 'off' });
  const fileInput = el('input', { type: 'file', hidden: true, tabindex: '-1', multiple: true, 'aria-hidden': 'true' });
  const attachButton = el('button', { type: 'button', class: 'attach', 'aria-label': 'Attach a file' }, '+');
  const sendButton = el('button', { type: 'submit', class: 'send' }, 'Send');
  const form = el(
    'form',
    { 'aria-label': 'Send a message' },
    el('label', { for: 'ap-input', class: 'sr' }, 'Your message'),
    attachButton,
    fileInput,
    input,
    sendButton,
  );
  const panel = el(
    'section',
    { class: 'panel', id: 'ap-panel', role: 'dialog', 'aria-modal': 'false', 'aria-labelledby': 'ap-title', hidden: true },
    el('header', {}, title, historyButton, newButton, closeButton),
    presence,
    history,
    log,
    notice,
    pending,
    form,
  );
  root.append(panel, bubble);
  return {
    host,
    bubble,
    panel,
    title,
    historyButton,
    newButton,
    closeButton,
    presence,
    history,
    historyList,
    log,
    notice,
    pending,
    form,
    input,
    attachButton,
    fileInput,
    sendButton,
  };
}

export type MessageKind = 'user' | 'assistant' | 'operator';

/** One message bubble; `text` is where streamed tokens are appended. */
export function messageElement(kind: MessageKind, who: string, content: string, files: string[] = []) {
  const text = el('span', { class: 'text' }, content);
  const node = el(
    'div',
    { class: `msg ${kind}` },
    el('span', { class: 'who' }, who),
    text,
    files.length ? el('div', { class: 'files' }, `Attached: ${files.join(', ')}`) : null,
  );
  return { node, text };
}

export function sourcesElement(sources: AnswerSource[]): HTMLElement | null {
  if (!sources.length) return null;
  const list = el('ul', { class: 'sources', 'aria-label': 'Sources' });
  for (const s of sources) {
    const label = s.title || s.documentTitle || s.url || 'Source';
    const safeUrl = s.url && /^https?:\/\//i.test(s.url) ? s.url : undefined;
    list.append(el('li', {}, safeUrl ? el('a', { href: safeUrl, target: '_blank', rel: 'noopener noreferrer' }, label) : label));
  }
  return list;
}
