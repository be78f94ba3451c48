import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describeWithBrowser, launchBrowser, seriousAccessibilityViolations } from './support/browser';

// The harness itself: Chromium starts, loads a page from a local server and axe-core finds a real violation.
describeWithBrowser('browser harness', () => {
  let server: Server;
  let url: string;
  let launched: Awaited<ReturnType<typeof launchBrowser>>;
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.setHeader('content-security-policy', "default-src 'self'");
      res.end('<!doctype html><html lang="en"><title>t</title><main><input id="unlabelled"><button id="b"></button></main></html>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    launched = await launchBrowser();
  });
  afterAll(async () => {
    await launched?.close();
    if (server) await new Promise((r) => server.close(r));
  });

  it('reports serious accessibility violations even on a page with a strict Content-Security-Policy', async () => {
    const page = await launched.browser.newPage();
    await page.goto(url);
    const ids = (await seriousAccessibilityViolations(page)).map((v) => v.id);
    expect(ids).toEqual(expect.arrayContaining(['button-name', 'label']));
  });
});
