/**
 * The console pages of issue 15's remainder in Debian's Chromium, against a real platform through its gateway and
 * a local fixture site: an operator connects a channel to an agent (write-only secrets), adds a feed source to a
 * knowledge base and watches its health and a re-sync, browses the knowledge graph of an ingested document
 * (search, an entity's neighbourhood, issues) and reviews suggestions (generate as a job, approve, apply).
 * Every page is checked with axe and photographed (artifacts/screenshots/console-channels.png, ...).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

import type { Page } from 'playwright-core';

import { CORPUS } from '../graph/corpus';
import { createKb, upload, waitForDocument } from '../knowledge/knowledge-support';
import { type FixtureSite, startFixtureSite } from '../sources/fixtures/site';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { describeWithBrowser, launchBrowser, screenshot, seriousAccessibilityViolations } from './support/browser';

const ROOT = join(__dirname, '..', '..');
const FLOW_TIMEOUT_MS = 240_000;
const ACCESS_TOKEN = 'EAAG-console-secret-token-123';

describeWithBrowser('console: channels, sources and the knowledge graph', () => {
  let p: TestPlatform;
  let site: FixtureSite;
  let launched: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let owner: TestUser;
  let kbId: string;
  let agentId: string;
  const cspViolations: string[] = [];

  beforeAll(async () => {
    // The suite checks the console of this checkout, not whatever build was left in dist/.
    execFileSync('npm', ['run', '--silent', 'build:console'], { cwd: ROOT, stdio: 'pipe' });
    site = await startFixtureSite();
    p = await startTestPlatform({ OUTBOUND_ALLOW: `127.0.0.1:${site.port}` });
    owner = await registerUser(p.http, { label: 'graham', displayName: 'Graham Graph' });
    // A knowledge base with an ingested document (its graph extracted), and an agent on it, made through the API.
    kbId = (await createKb(p, owner.accessToken, { name: 'Victorians' })).id;
    const doc = await upload(p, `/api/knowledge/kb/${kbId}/documents`, owner.accessToken, {
      name: 'victorians.txt',
      type: 'text/plain',
      bytes: Buffer.from(CORPUS.map((c) => c.text).join('\n\n')),
    });
    const done = await waitForDocument(p, owner.accessToken, kbId, doc.body.document.id);
    if (done.graphStatus !== 'completed') throw new Error(`graph extraction did not complete: ${JSON.stringify(done)}`);
    const agent = await p.http.post('/api/bots', { name: 'History bot', knowledgeBaseIds: [kbId] }, { token: owner.accessToken });
    agentId = agent.body.bot.id;
    launched = await launchBrowser();
    page = await launched.browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await launched?.close();
    await p?.close();
    await site?.close();
  }, BOOT_TIMEOUT_MS);

  async function checkPage(name: string) {
    await screenshot(page, name);
    const violations = await seriousAccessibilityViolations(page);
    expect(violations.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  }
  const heading = (text: string | RegExp) => page.getByRole('heading', { level: 1, name: text }).waitFor();
  const link = (name: string) => page.getByRole('link', { name, exact: true }).click();

  it(
    'connects a channel with write-only secrets, edits and deactivates it',
    async () => {
      await page.goto(`${p.gatewayUrl}/console/sign-in`);
      await heading('Sign in');
      await page.getByLabel('Email').fill(owner.email);
      await page.getByLabel('Password').fill(owner.password);
      await page.getByLabel('Password').press('Enter');
      await heading('Knowledge bases');

      await page.goto(`${p.gatewayUrl}/console/agents/${agentId}`);
      await heading('Agent: History bot');
      await link('Channels');
      await heading('Channels: History bot');
      await page.getByText('No channel yet').waitFor();
      await page.getByLabel('Channel type').selectOption({ label: 'WhatsApp Business' });
      await page.getByLabel('Label').fill('Support line');
      await page.getByLabel('Phone number id').fill('1234567890');
      await page.getByLabel('App secret').fill('app-secret-console-1');
      await page.getByLabel('Access token').fill(ACCESS_TOKEN);
      await page.getByLabel('Webhook verify token').fill('verify-console-1');
      await page.getByRole('button', { name: 'Connect channel' }).click();
      const card = page.getByTestId('channel').filter({ hasText: 'Support line' });
      await card.getByText('active', { exact: true }).waitFor();
      await card.getByText(/\/api\/public\/channels\/[0-9a-f-]+\/inbound/).waitFor();
      // Secrets are write-only: the page never shows them, and the platform kept them (the channel works).
      expect(await page.content()).not.toContain(ACCESS_TOKEN);
      const stored = await p.http.get(`/api/bots/${agentId}/channels`, { token: owner.accessToken });
      expect(stored.body.channels).toEqual([expect.objectContaining({ type: 'whatsapp_business', label: 'Support line', isActive: true })]);

      // Edit: a new label, secrets left blank (kept); then deactivate.
      await card.getByRole('button', { name: 'Edit Support line' }).click();
      const edit = page.getByRole('form', { name: 'Edit Support line' });
      await expect(edit.getByLabel('Access token').inputValue()).resolves.toBe('');
      await edit.getByLabel('Label').fill('Sales line');
      await edit.getByRole('button', { name: 'Save channel' }).click();
      const renamed = page.getByTestId('channel').filter({ hasText: 'Sales line' });
      await renamed.getByRole('button', { name: 'Deactivate Sales line' }).click();
      await renamed.getByText('inactive', { exact: true }).waitFor();
      const after = await p.http.get(`/api/bots/${agentId}/channels`, { token: owner.accessToken });
      expect(after.body.channels).toEqual([expect.objectContaining({ label: 'Sales line', isActive: false })]);
      await checkPage('console-channels');
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    "adds a feed source, shows its health and item count, and re-syncs it with the job's progress",
    async () => {
      await page.goto(`${p.gatewayUrl}/console/knowledge/${kbId}`);
      await heading('Knowledge base: Victorians');
      await page.getByText('No source yet').waitFor();
      await page.getByLabel('Source URL').fill(`${site.base}/feed.xml`);
      await page.getByLabel('Source type').selectOption('rss');
      await page.getByRole('button', { name: 'Add source' }).click();
      await page.locator('p.status[data-status=completed]').waitFor({ timeout: 90_000 });
      const row = page.getByTestId('source').filter({ hasText: 'feed.xml' });
      await row.getByTestId('source-health').getByText('healthy').waitFor();
      expect(Number(await row.locator('td').nth(3).textContent())).toBeGreaterThan(0);

      await row.getByRole('button', { name: `Re-sync ${site.base}/feed.xml` }).click();
      await row.locator('.status[data-status=completed]').waitFor({ timeout: 90_000 });
      await expect(row.getByRole('progressbar').getAttribute('value')).resolves.toBe('100');
      await checkPage('console-sources');
    },
    FLOW_TIMEOUT_MS,
  );

  it(
    'browses the graph: search, an entity with its neighbourhood, issues; reviews and applies a suggestion',
    async () => {
      await page.goto(`${p.gatewayUrl}/console/knowledge/${kbId}`);
      await link('Knowledge graph');
      await heading('Knowledge graph: Victorians');
      expect(Number(await page.getByTestId('graph-entities').textContent())).toBeGreaterThan(20);
      await page.getByLabel('Entity type').selectOption('person');
      await page.getByLabel('Name or alias').fill('lovelace');
      await page.getByRole('button', { name: 'Find entities' }).click();
      await page.locator('caption', { hasText: '(1)' }).waitFor();
      await checkPage('console-graph');

      await link('Ada Lovelace');
      await heading('Entity: Ada Lovelace');
      const neighbourhood = page.getByTestId('neighbourhood');
      await neighbourhood.getByRole('link', { name: 'Charles Babbage' }).first().waitFor();
      await checkPage('console-graph-entity');
      // A neighbour opens in turn.
      await neighbourhood.getByRole('link', { name: 'Charles Babbage' }).first().click();
      await heading('Entity: Charles Babbage');

      await link('Suggestions review');
      await heading('Graph suggestions: Victorians');
      await page.getByRole('button', { name: 'Generate suggestions' }).click();
      await page.locator('p.status[data-status=completed]').waitFor({ timeout: 90_000 });
      const first = page.getByTestId('suggestion').first();
      await first.waitFor();
      await first.getByRole('button', { name: /^Approve/ }).click();
      await page.getByRole('button', { name: 'Apply 1 approved' }).click();
      await page
        .getByTestId('apply-outcome')
        .getByText(/^Applied 1 suggestion/)
        .waitFor();
      await page.getByLabel('Status').selectOption('applied');
      await page.getByTestId('suggestion').filter({ hasText: 'applied' }).waitFor();
      await expect(page.getByTestId('suggestion').count()).resolves.toBe(1);
      const applied = await p.http.get(`/api/knowledge/kb/${kbId}/graph/optimize/suggestions?status=applied`, { token: owner.accessToken });
      expect(applied.body.total).toBe(1);
      await checkPage('console-graph-suggestions');

      await link('Entities and issues');
      await heading('Knowledge graph: Victorians');
      await page.getByTestId('graph-issues').locator('li').first().waitFor();
      expect(cspViolations).toEqual([]);
    },
    FLOW_TIMEOUT_MS,
  );
});
