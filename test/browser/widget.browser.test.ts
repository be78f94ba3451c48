/**
 * The embeddable chat widget in Debian's Chromium: a shop on another origin, with a strict Content-Security-
 * Policy, embeds `<script src=".../widget.js" data-agent="<slug>" async>`; a visitor chats with a published
 * agent over the public lane, attaches files, is rate-limited, reloads, and sees an operator take over.
 * Screenshots go to artifacts/screenshots/widget-*.png.
 */
import { spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import type { BrowserContext, Page } from 'playwright-core';

import { distributedAgent, knowledgeBaseWithDocument, type PublishedAgent, waitFor } from '../public-chat/public-support';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { describeWithBrowser, launchBrowser, screenshot, seriousAccessibilityViolations } from './support/browser';

const ROOT = join(__dirname, '..', '..');
/** Per visitor per minute; opening a conversation counts as one (spec 7, 8). */
const CHAT_LIMIT = 3;
const ATTACHMENT_MAX_BYTES = 2048;

let p: TestPlatform;
let owner: TestUser;
let agent: PublishedAgent;
/** An agent whose widget channel has a theme and lists the shop's origin (served at /themed). */
let themed: PublishedAgent;
const THEME = { primaryColor: '#b91c1c', textColor: '#fefce8', position: 'left' };
let host: Server;
let hostUrl: string;
let launched: Awaited<ReturnType<typeof launchBrowser>>;

/** The shop's page: nothing inline runs under its policy, so a widget needing inline code or styles would break. */
function hostPage(platformOrigin: string, slug: string): { csp: string; html: string } {
  return {
    csp: `default-src 'self'; script-src 'self' ${platformOrigin}; connect-src ${platformOrigin}; style-src 'self'; img-src 'self'`,
    html: `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Acme shop</title></head>
<body>
<main><h1>Acme shop</h1><p>Questions about refunds or shipping? Ask our assistant.</p></main>
<script>window.inlineScriptRan = true;</script>
<script src="${platformOrigin}/widget.js" data-agent="${slug}" async></script>
</body>
</html>`,
  };
}

beforeAll(async () => {
  // The widget under test is the one built from these sources (npm install builds it the same way).
  const build = spawnSync(process.execPath, [join(ROOT, 'widget', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
  if (build.status !== 0) throw new Error(`widget build failed: ${build.stderr}`);
  p = await startTestPlatform({
    PUBLIC_CHAT_PER_MINUTE: String(CHAT_LIMIT),
    PUBLIC_CHAT_PER_IP_PER_MINUTE: '100',
    PUBLIC_UPLOADS_PER_MINUTE: '20',
    PUBLIC_ATTACHMENT_MAX_BYTES: String(ATTACHMENT_MAX_BYTES),
  });
  owner = await registerUser(p.http, { label: 'widget-owner', displayName: 'Ada Support' });
  agent = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner), { name: 'Acme Helper', fileUploadsEnabled: true });
  const token = owner.accessToken;
  const welcome = await p.http.post(
    `/api/bots/${agent.id}/prompt-config-versions`,
    { sections: [{ promptType: 'welcome', mode: 'fixed', content: 'Hello! I am {{agent.name}}. Ask me about refunds or shipping.' }] },
    { token },
  );
  if (welcome.status !== 201) throw new Error(`welcome section: ${welcome.status} ${welcome.text}`);
  await p.http.request('PUT', `/api/bots/${agent.id}/prompt-live`, { body: {}, token });

  const page = hostPage(new URL(p.gatewayUrl).origin, agent.slug);
  themed = await distributedAgent(p, owner, await knowledgeBaseWithDocument(p, owner), { name: 'Themed Helper' });
  const themedPage = hostPage(new URL(p.gatewayUrl).origin, themed.slug);
  host = createServer((req, res) => {
    const served = req.url === '/themed' ? themedPage : page;
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.setHeader('content-security-policy', served.csp);
    res.end(served.html);
  });
  await new Promise<void>((r) => host.listen(0, '127.0.0.1', r));
  hostUrl = `http://127.0.0.1:${(host.address() as AddressInfo).port}/`;
  const widget = await p.http.post(
    `/api/bots/${themed.id}/channels`,
    { type: 'widget', label: 'Shop widget', config: { allowedOrigins: [new URL(hostUrl).origin], theme: THEME } },
    { token },
  );
  if (widget.status !== 201) throw new Error(`widget channel: ${widget.status} ${widget.text}`);
  launched = await launchBrowser();
}, BOOT_TIMEOUT_MS);

afterAll(async () => {
  await launched?.close();
  if (host) await new Promise((r) => host.close(r));
  await p?.close();
}, BOOT_TIMEOUT_MS);

/** Records CSP violations from the first byte of the page (an init script is not subject to the page's policy). */
async function visitorPage(context: BrowserContext, path = ''): Promise<Page> {
  await context.addInitScript(() => {
    const w = globalThis as any;
    w.cspViolations = [];
    w.document.addEventListener('securitypolicyviolation', (e: any) => w.cspViolations.push(`${e.effectiveDirective} ${e.blockedURI}`));
  });
  const page = await context.newPage();
  await page.goto(hostUrl + path);
  return page;
}

const cspViolations = (page: Page) => page.evaluate(() => (globalThis as any).cspViolations as string[]);

/** Evaluates inside the widget's shadow root (through a handle: the page's policy forbids eval). */
async function inWidget<T>(page: Page, fn: (root: any) => T): Promise<T> {
  const root = await page.evaluateHandle(() => (globalThis as any).document.querySelector('[data-agent-platform-widget]').shadowRoot);
  try {
    return (await root.evaluate(fn)) as T;
  } finally {
    await root.dispose();
  }
}

const logText = (page: Page) => page.getByRole('log', { name: 'Conversation' }).innerText();
const noticeText = (page: Page) => inWidget(page, (root) => (root.querySelector('.notice').textContent ?? '') as string);

async function until<T>(probe: () => Promise<T | null | undefined | false>, what: string): Promise<T> {
  return waitFor(probe, what, 60_000);
}

/** Waits until the last assistant message is complete (no longer aria-busy) and returns its text. */
async function lastAnswer(page: Page): Promise<string> {
  return until(
    () =>
      inWidget(page, (root) => {
        const last: any = Array.from(root.querySelectorAll('.msg.assistant')).pop();
        return last && !last.hasAttribute('aria-busy') ? (last.querySelector('.text').textContent as string) : null;
      }),
    'the answer to finish',
  );
}

async function ask(page: Page, question: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Your message' }).fill(question);
  await page.getByRole('button', { name: 'Send' }).click();
}

describeWithBrowser('chat widget embedded in another site', () => {
  let context: BrowserContext;
  let page: Page;
  beforeAll(async () => {
    context = await launched.browser.newContext({ viewport: { width: 1100, height: 760 } });
    page = await visitorPage(context);
  });
  afterAll(() => context?.close());

  it('loads from the platform under a strict CSP: a bubble in a styled shadow root, nothing blocked but the page’s own inline script', async () => {
    const bubble = page.getByRole('button', { name: /Open chat with/ });
    await bubble.waitFor();
    expect(await page.evaluate(() => (globalThis as any).inlineScriptRan)).toBeUndefined();
    // The constructed stylesheet applied although the policy forbids inline styles.
    const styles = await inWidget(page, (root) => {
      const w = globalThis as any;
      return {
        position: w.getComputedStyle(root.host).position,
        bubble: w.getComputedStyle(root.querySelector('.bubble')).backgroundColor,
      };
    });
    expect(styles).toEqual({ position: 'fixed', bubble: 'rgb(29, 78, 216)' });
    expect(await bubble.getAttribute('aria-expanded')).toBe('false');
    const violations = await cspViolations(page);
    expect(violations.filter((v) => !v.startsWith('script-src-elem inline'))).toEqual([]);
    expect(violations).toEqual(['script-src-elem inline']);
    await screenshot(page, 'widget-closed');
  });

  it('opens a dialog with the welcome message and streams an answer token by token', async () => {
    await page.getByRole('button', { name: /Open chat with/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Acme Helper' });
    await dialog.waitFor();
    expect(await until(async () => (await logText(page)).includes('Hello! I am Acme Helper.'), 'the welcome')).toBe(true);
    await screenshot(page, 'widget-open-welcome');
    const anonymousId = await page.evaluate(
      () => Object.entries((globalThis as any).localStorage as Record<string, string>).find(([k]) => k.endsWith(':anonymousId'))?.[1],
    );
    expect(anonymousId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // Counts the pieces the answer is rendered in as they arrive.
    await inWidget(page, (root) => {
      const w = globalThis as any;
      w.answerPieces = 0;
      new w.MutationObserver((records: any[]) => {
        for (const r of records)
          if (r.target.classList?.contains('text') && r.target.parentElement?.classList.contains('assistant'))
            w.answerPieces += r.addedNodes.length;
      }).observe(root.querySelector('.log')!, { childList: true, subtree: true });
    });
    await ask(page, 'When are refunds paid?');
    expect(await lastAnswer(page)).toMatch(/fourteen days/);
    expect(await page.evaluate(() => (globalThis as any).answerPieces)).toBeGreaterThan(1);
    expect(await logText(page)).toContain('When are refunds paid?');
    const violations = await seriousAccessibilityViolations(page);
    expect(violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
    await screenshot(page, 'widget-open-answer');
  });

  it('uploads an attachment, sends it with a question, and explains a too-large or unsupported file kindly', async () => {
    const fileInput = page.locator('input[type="file"]');
    await fileInput.setInputFiles({
      name: 'huge-notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('x'.repeat(ATTACHMENT_MAX_BYTES * 3)),
    });
    expect(await until(async () => (await noticeText(page)).includes('too large'), 'the too-large notice')).toBe(true);
    expect(await noticeText(page)).toBe('“huge-notes.txt” is too large to send. Please choose a smaller file.');
    await screenshot(page, 'widget-attachment-too-large');

    await fileInput.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from('not a picture at all') });
    // "Uploading photo.png…" comes first, and lasts on a loaded machine: wait for the refusal itself
    expect(await until(async () => /photo\.png.*can’t be sent/.test(await noticeText(page)), 'the unsupported-type notice')).toBe(true);
    expect(await noticeText(page)).toMatch(/can’t be sent: this type of file isn’t supported/);

    await fileInput.setInputFiles({ name: 'order.txt', mimeType: 'text/plain', buffer: Buffer.from('Order 4711: two blue mugs.') });
    const chip = page.getByRole('list', { name: 'Files to send' }).getByRole('listitem');
    await until(async () => (await chip.count()) === 1, 'the attachment chip');
    expect(await chip.innerText()).toContain('order.txt');
    expect(await page.getByRole('button', { name: 'Remove order.txt' }).count()).toBe(1);

    await ask(page, 'Is shipping free for my order?');
    await lastAnswer(page);
    expect(await logText(page)).toContain('Attached: order.txt');
    expect(await chip.count()).toBe(0);
  });

  it('shows the wait a 429 asks for, keeps the question and blocks sending until then', async () => {
    // Opening the conversation and two questions used this visitor's minute.
    const refused = page.waitForResponse((r) => r.url().endsWith('/chat') && r.request().method() === 'POST');
    await ask(page, 'And how long does delivery take?');
    const response = await refused;
    expect(response.status()).toBe(429);
    const retryAfter = Number(response.headers()['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    const notice = await until(async () => {
      const text = await noticeText(page);
      return /wait \d+ seconds?/.test(text) ? text : null;
    }, 'the rate-limit notice');
    // The countdown starts at the platform's Retry-After (it may have ticked once since).
    const shown = Number(/wait (\d+) second/.exec(notice)![1]);
    expect([retryAfter, retryAfter - 1]).toContain(shown);
    expect(await page.getByRole('button', { name: 'Send' }).isDisabled()).toBe(true);
    expect(await page.getByRole('textbox', { name: 'Your message' }).inputValue()).toBe('And how long does delivery take?');
    expect(await logText(page)).not.toContain('And how long does delivery take?');
    await screenshot(page, 'widget-rate-limited');
  });

  it('after a reload shows the same conversation and lists it among the visitor’s past conversations', async () => {
    await page.reload();
    await page.getByRole('button', { name: /Open chat with/ }).click();
    const text = await until(async () => {
      const t = await logText(page);
      return t.includes('Is shipping free for my order?') ? t : null;
    }, 'the earlier conversation');
    expect(text).toContain('Hello! I am Acme Helper.');
    expect(text).toContain('When are refunds paid?');
    expect(text).toMatch(/fourteen days/);

    await page.getByRole('button', { name: 'Past chats' }).click();
    const past = page.getByRole('navigation', { name: 'Your past conversations' }).getByRole('button');
    await until(async () => (await past.count()) > 0, 'the conversation list');
    expect(await past.count()).toBe(1);
    expect(await past.first().innerText()).toContain('When are refunds paid?');
    await screenshot(page, 'widget-history-after-reload');
    await page.keyboard.press('Escape');
    expect(await page.getByRole('log', { name: 'Conversation' }).isVisible()).toBe(true);
  });

  it('shows an operator joining, taking over and writing, live', async () => {
    const panel = page.locator('section[data-presence="connected"]');
    await panel.waitFor();
    const conversationId = (await panel.getAttribute('data-conversation-id'))!;
    const operator = (body: Record<string, unknown>) =>
      p.http.post(`/api/bots/${agent.id}/conversations/${conversationId}/operator-events`, body, { token: owner.accessToken });
    expect((await operator({ type: 'conversation.takeover' })).status).toBe(202);
    const status = page.getByRole('status').filter({ hasText: 'taken over' });
    await status.waitFor();
    expect(await status.innerText()).toBe('Ada Support (a person from the team) has taken over this conversation.');
    expect((await operator({ type: 'operator.message', message: 'Hi, Ada here. Your mugs ship today.' })).status).toBe(202);
    expect(await until(async () => (await logText(page)).includes('Hi, Ada here. Your mugs ship today.'), 'the operator message')).toBe(
      true,
    );
    expect(await logText(page)).toContain('Ada Support (team)');
    expect(await status.innerText()).toBe('Ada Support (a person from the team) has taken over this conversation.');
    await screenshot(page, 'widget-operator-takeover');
  });
});

describeWithBrowser('chat widget with a themed widget channel', () => {
  it("follows the channel's theme (colours, corner) on a site its allowedOrigins list", async () => {
    const context = await launched.browser.newContext({ viewport: { width: 1100, height: 760 } });
    try {
      const page = await visitorPage(context, 'themed');
      const bubble = page.getByRole('button', { name: /Open chat with/ });
      await bubble.waitFor();
      const closed = () =>
        inWidget(page, (root) => {
          const w = globalThis as any;
          return { bubble: w.getComputedStyle(root.querySelector('.bubble')).backgroundColor, left: w.getComputedStyle(root.host).left };
        });
      // The theme comes with the public agent, asked for at mount: before the chat is opened.
      expect(await until(async () => (await closed()).bubble === 'rgb(185, 28, 28)' && closed(), 'the themed bubble')).toEqual({
        bubble: 'rgb(185, 28, 28)',
        left: '20px',
      });
      await bubble.click();
      await page.getByRole('dialog', { name: 'Themed Helper' }).waitFor();
      const header = await inWidget(page, (root) => {
        const w = globalThis as any;
        const style = w.getComputedStyle(root.querySelector('header'));
        return { background: style.backgroundColor, color: style.color };
      });
      expect(header).toEqual({ background: 'rgb(185, 28, 28)', color: 'rgb(254, 252, 232)' });
      expect((await cspViolations(page)).filter((v) => !v.startsWith('script-src-elem inline'))).toEqual([]);
      await screenshot(page, 'widget-themed');
    } finally {
      await context.close();
    }
  });
});

describeWithBrowser('chat widget with the keyboard alone', () => {
  it('opens with Tab and Enter, sends with Enter, closes with Escape back to the bubble', async () => {
    const context = await launched.browser.newContext();
    try {
      const page = await visitorPage(context);
      await page.getByRole('button', { name: /Open chat with/ }).waitFor();
      const focused = () =>
        page.evaluate(() => {
          const active = (globalThis as any).document.activeElement?.shadowRoot?.activeElement;
          return active ? active.getAttribute('aria-label') || active.id || active.tagName : null;
        });
      await page.keyboard.press('Tab');
      expect(await focused()).toMatch(/^Open chat with/);
      await page.keyboard.press('Enter');
      expect(await focused()).toBe('ap-input');
      await until(async () => (await logText(page)).includes('Hello! I am Acme Helper.'), 'the welcome');

      await page.keyboard.type('Is shipping free?');
      await page.keyboard.press('Enter');
      expect(await lastAnswer(page)).toMatch(/free/i);
      await screenshot(page, 'widget-keyboard');
      expect((await seriousAccessibilityViolations(page)).map((v) => `${v.id}: ${v.help}`)).toEqual([]);

      // An operator takes the conversation over: the next message waits for them and the agent stays silent.
      const panel = page.locator('section[data-presence="connected"]');
      const conversationId = await panel.getAttribute('data-conversation-id');
      const takeover = await p.http.post(
        `/api/bots/${agent.id}/conversations/${conversationId}/operator-events`,
        { type: 'conversation.takeover' },
        { token: owner.accessToken },
      );
      expect(takeover.status).toBe(202);
      await page.getByRole('status').filter({ hasText: 'taken over' }).waitFor();
      const answers = () => inWidget(page, (root) => root.querySelectorAll('.msg.assistant').length as number);
      const before = await answers();
      await page.keyboard.type('Can a person check my order?');
      await page.keyboard.press('Enter');
      await until(async () => (await noticeText(page)).includes('passed to the person helping you'), 'the held-message notice');
      expect(await logText(page)).toContain('Can a person check my order?');
      expect(await answers()).toBe(before);

      await page.keyboard.press('Escape');
      expect(await page.getByRole('dialog').count()).toBe(0);
      expect(await focused()).toMatch(/^Open chat with/);
      expect(await page.getByRole('button', { name: /Open chat with/ }).getAttribute('aria-expanded')).toBe('false');
    } finally {
      await context.close();
    }
  });
});
