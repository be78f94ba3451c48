/**
 * The operator console in Debian's Chromium, against a real platform through its gateway: an operator registers,
 * builds a knowledge base by drag and drop, publishes an agent, takes over a visitor's conversation and answers;
 * the visitor reads the answer through the public API. Every main page is checked with axe and photographed
 * (artifacts/screenshots/console-*.png).
 */
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { describeWithBrowser, launchBrowser, screenshot, seriousAccessibilityViolations } from './support/browser';

const ROOT = join(__dirname, '..', '..');
const REFUNDS = 'Refund policy. Refunds are paid within fourteen days of the request. Shipping is free for orders above fifty euros.';
const WARRANTY = 'Warranty. Every device carries a two-year warranty covering manufacturing defects.';
const FLOW_TIMEOUT_MS = 240_000;

describeWithBrowser('operator console', () => {
  let p: TestPlatform;
  let launched: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  const cspViolations: string[] = [];
  const email = `operator-${randomUUID().slice(0, 8)}@example.com`;
  const password = `pw-${randomUUID()}`;

  beforeAll(async () => {
    // The suite checks the console of this checkout, not whatever build was left in dist/.
    execFileSync('npm', ['run', '--silent', 'build:console'], { cwd: ROOT, stdio: 'pipe' });
    p = await startTestPlatform();
    launched = await launchBrowser();
    page = await launched.browser.newPage({ viewport: { width: 1280, height: 900 }, acceptDownloads: true });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await launched?.close();
    await p?.close();
  }, BOOT_TIMEOUT_MS);

  async function checkPage(name: string) {
    await screenshot(page, name);
    const violations = await seriousAccessibilityViolations(page);
    expect(violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }
  const nav = (label: string) => page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: label }).click();
  const heading = (text: string | RegExp) => page.getByRole('heading', { level: 1, name: text }).waitFor();

  it(
    'takes an operator from sign-up to answering a visitor who then sees the answer',
    async () => {
      // Sign-up: an unauthenticated visit lands on the sign-in page.
      await page.goto(`${p.gatewayUrl}/console/`);
      await heading('Sign in');
      expect(new URL(page.url()).pathname).toBe('/console/sign-in');
      await checkPage('console-sign-in');
      await page.getByRole('button', { name: 'Create an account' }).click();
      await page.getByLabel('Your name').fill('Olivia Operator');
      await page.getByLabel('Organization name').fill('Acme Support');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByLabel('Password').press('Enter');
      await heading('Knowledge bases');

      // Knowledge: a base, one document dropped on the drop zone and one chosen with the file input, both ingested.
      await page.getByLabel('Name', { exact: true }).fill('Policies');
      await page.getByRole('button', { name: 'Create knowledge base' }).click();
      await heading('Knowledge base: Policies');
      await page.evaluate(`(() => {
        const files = new DataTransfer();
        files.items.add(new File([${JSON.stringify(REFUNDS)}], 'refund-policy.txt', { type: 'text/plain' }));
        const zone = document.querySelector('[data-testid=dropzone]');
        zone.dispatchEvent(new DragEvent('dragover', { dataTransfer: files, bubbles: true, cancelable: true }));
        zone.dispatchEvent(new DragEvent('drop', { dataTransfer: files, bubbles: true, cancelable: true }));
      })()`);
      await page
        .getByLabel('Choose files')
        .setInputFiles({ name: 'warranty.md', mimeType: 'text/markdown', buffer: Buffer.from(WARRANTY) });
      const uploads = page.locator('.uploads li');
      await uploads.filter({ hasText: 'refund-policy.txt' }).locator('[data-status=completed]').waitFor({ timeout: 60_000 });
      await uploads.filter({ hasText: 'warranty.md' }).locator('[data-status=completed]').waitFor({ timeout: 60_000 });
      expect(await uploads.filter({ hasText: 'refund-policy.txt' }).locator('progress').getAttribute('value')).toBe('100');
      await page.locator('tbody tr', { hasText: 'refund-policy.txt' }).getByText('completed').waitFor();
      await page.locator('tbody tr', { hasText: 'warranty.md' }).getByText('completed').waitFor();
      await checkPage('console-knowledge');

      // Agents: create a draft linked to the base, publish it, get its distribution link.
      await nav('Agents');
      await heading('Agents');
      await page.getByLabel('Name', { exact: true }).fill('Support bot');
      await page.getByLabel('System prompt').fill('You answer questions about our policies.');
      await page.getByRole('checkbox', { name: 'Policies' }).check();
      await page.getByRole('button', { name: 'Create agent' }).click();
      await heading('Agent: Support bot');
      await expect(page.getByTestId('agent-status').textContent()).resolves.toBe('draft');
      await page.getByRole('button', { name: 'Publish' }).click();
      await page.getByTestId('agent-status').getByText('published').waitFor();
      await page.getByRole('button', { name: 'Create distribution link' }).click();
      const link = await page.getByTestId('distribution-link').textContent();
      const slug = /\/api\/public\/agents\/([^/?#]+)/.exec(link ?? '')?.[1];
      expect(slug).toBeTruthy();

      // Prompt versions: two saved versions, their diff, and the live pointer moved to the second.
      await page.getByLabel('System prompt section').fill('Be brief.\nAnswer in English.');
      await page.getByRole('button', { name: 'Save as new version' }).click();
      await page.getByRole('cell', { name: 'v1.0', exact: true }).waitFor();
      await page.getByLabel('System prompt section').fill('Be brief.\nAnswer in French.');
      await page.getByLabel('Version label').fill('French answers');
      await page.getByRole('button', { name: 'Save as new version' }).click();
      await page.getByRole('cell', { name: 'v1.1', exact: true }).waitFor();
      await page.getByLabel('From').selectOption({ label: 'v1.0' });
      await page.getByLabel('To').selectOption({ label: 'v1.1' });
      const diff = page.getByLabel('Differences between the two versions');
      await diff.locator('.added').first().waitFor();
      await expect(diff.locator('.removed').allTextContents()).resolves.toEqual(['- Answer in English.']);
      await expect(diff.locator('.added').allTextContents()).resolves.toEqual(['+ Answer in French.']);
      await page.getByRole('button', { name: 'Make v1.1 live' }).click();
      await page.getByTestId('prompt-live').getByText('v1.1').waitFor();
      await checkPage('console-agents');

      // A visitor talks to the published agent through the public API.
      const visitor = randomUUID();
      const started = await p.http.post(`/api/public/agents/${slug}/conversations`, { anonymousId: visitor });
      expect(started.status).toBe(200);
      const conversationId = started.body.data.conversationId as string;
      const asked = await p.http.post(`/api/public/agents/${slug}/chat`, {
        message: 'How long do refunds take?',
        conversationId,
        anonymousId: visitor,
      });
      expect(asked.status).toBe(200);

      // The operator opens it from the inbox, takes over and answers.
      await nav('Conversations');
      await heading('Conversations');
      await page.getByRole('link', { name: 'How long do refunds take?' }).click();
      await heading('Conversation');
      await page.getByRole('listitem').filter({ hasText: 'How long do refunds take?' }).waitFor();
      await page.getByRole('button', { name: 'Take over' }).click();
      await page.getByRole('status').getByText('You are handling this conversation').waitFor();
      await page.getByLabel('Reply as operator').fill('Hello, Olivia here: refunds are paid within fourteen days.');
      await page.getByRole('button', { name: 'Send' }).click();
      await page.locator('.message.operator', { hasText: 'Olivia here' }).waitFor();
      // While taken over, the visitor's next message waits for the operator: no agent answer.
      const held = await p.http.post(`/api/public/agents/${slug}/chat`, {
        message: 'Can you check order 4711?',
        conversationId,
        anonymousId: visitor,
      });
      expect(held.body).toMatchObject({ response: '', operatorTakeover: true });
      await page.locator('.message.user', { hasText: 'Can you check order 4711?' }).getByText('waiting for an operator').waitFor();
      await checkPage('console-conversation');
      // The takeover is the platform's: it survives a reload.
      await page.reload();
      await page.getByRole('status').getByText('You are handling this conversation').waitFor();

      // The visitor sees the operator's message, marked as the operator's.
      const history = await p.http.get(`/api/public/agents/${slug}/conversations/${conversationId}/messages?anonymousId=${visitor}`);
      expect(history.status).toBe(200);
      expect(history.body.messages.at(-2)).toMatchObject({
        role: 'assistant',
        content: 'Hello, Olivia here: refunds are paid within fourteen days.',
        operator: { displayName: 'Olivia Operator' },
      });
      expect(history.body.messages.at(-1)).toMatchObject({ role: 'user', content: 'Can you check order 4711?' });

      expect(cspViolations).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'shows search results with discovery methods and scores, contacts with a CSV export, analytics charts and the organization',
    async () => {
      await nav('Search');
      await heading('Search playground');
      await page.getByLabel('Query').fill('refund fourteen days');
      await page.getByRole('button', { name: 'Search' }).click();
      const first = page.locator('.results li').first();
      await first.waitFor();
      await expect(first.locator('.badge').first().textContent()).resolves.toMatch(/^(semantic|image|graph)$/);
      expect(Number(await first.getByTestId('score').textContent())).toBeGreaterThan(0);
      await checkPage('console-search');

      await nav('Contacts');
      await heading('Contacts');
      await page.locator('caption', { hasText: /^[1-9]\d* contacts$/ }).waitFor();
      const download = page.waitForEvent('download');
      await page.getByRole('button', { name: 'Export CSV' }).click();
      const csv = await download;
      expect(csv.suggestedFilename()).toBe('contacts.csv');
      await checkPage('console-contacts');

      await nav('Analytics');
      await heading('Analytics');
      await page.locator('.metrics li', { hasText: 'Conversations' }).locator('strong').waitFor();
      expect(
        Number(await page.locator('.metrics li', { hasText: 'Conversations' }).locator('strong').textContent()),
      ).toBeGreaterThanOrEqual(1);
      await page.locator('.chart canvas').first().waitFor();
      await checkPage('console-analytics');

      await nav('Organization');
      await heading('Organization');
      await page.getByRole('cell', { name: email }).waitFor();
      await page.getByLabel('Key name').fill('CI key');
      await page.getByRole('button', { name: 'Create key' }).click();
      await expect(page.getByRole('status').filter({ hasText: 'New key' }).locator('code').textContent()).resolves.toMatch(/\S{20,}/);
      await page.getByRole('cell', { name: 'CI key', exact: true }).waitFor();
      await page.getByTestId('wallet-balance').waitFor();
      await page.getByRole('cell', { name: 'agent.create', exact: true }).first().waitFor();
      await checkPage('console-organization');

      // The session survives a reload on a deep link (SPA fallback + stored session).
      await page.reload();
      await heading('Organization');
      // And a keyboard user reaches the content past the navigation with the skip link.
      await page.keyboard.press('Tab');
      await expect(page.evaluate('document.activeElement.textContent')).resolves.toBe('Skip to content');
      await page.keyboard.press('Enter');
      await expect(page.evaluate('document.activeElement.id')).resolves.toBe('main');

      // Signing out forgets the session; signing in again with the same account brings the console back.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await heading('Sign in');
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill('not the password');
      await page.getByLabel('Password').press('Enter');
      await page.getByRole('alert').getByText(/./).waitFor();
      await page.getByLabel('Password').fill(password);
      await page.getByLabel('Password').press('Enter');
      await heading('Knowledge bases');
      await page.getByRole('link', { name: 'Policies' }).waitFor();
      expect(cspViolations).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
