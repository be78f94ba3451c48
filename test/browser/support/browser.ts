import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

import { type Browser, chromium, type Page } from 'playwright-core';

/** Where browser suites save screenshots for a reviewer (named in the README; not committed). */
export const SCREENSHOTS_DIR = join(__dirname, '..', '..', '..', 'artifacts', 'screenshots');

/** Debian's Chromium, or CHROMIUM_PATH. `.ci/run` installs it; elsewhere the browser suites skip. */
export function chromiumPath(): string | undefined {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  return candidates.find((p): p is string => !!p && existsSync(p));
}

/**
 * `describe` when a browser is installed, otherwise `describe.skip` with a message saying why, so a
 * machine without Chromium still runs the rest of the suite.
 */
export function describeWithBrowser(name: string, body: () => void): void {
  if (chromiumPath()) {
    describe(name, body);
    return;
  }
  describe.skip(`${name} (skipped: no Chromium; install Debian's chromium or set CHROMIUM_PATH)`, body);
}

/**
 * Headless Chromium with the flags this sandboxed machine needs: no sandbox (root), no background
 * networking (the closed network refuses it); Playwright gives each launch a fresh profile.
 */
export async function launchBrowser(): Promise<{ browser: Browser; close(): Promise<void> }> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error('no Chromium installed');
  const browser = await chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    close: () => browser.close(),
  };
}

/** Saves a full-page screenshot as artifacts/screenshots/<name>.png. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS_DIR, { recursive: true });
  const path = join(SCREENSHOTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core in the page (including open shadow roots) and returns the serious and critical
 * violations; a test expects the list to be empty.
 */
export async function seriousAccessibilityViolations(page: Page, selector?: string): Promise<AxeViolation[]> {
  const source = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
  // evaluate, not a script tag: a host page with a strict Content-Security-Policy refuses inline scripts.
  await page.evaluate(source);
  const violations = await page.evaluate(async (context) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(context ?? (globalThis as unknown as { document: unknown }).document, { resultTypes: ['violations'] });
    return result.violations;
  }, selector);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}
