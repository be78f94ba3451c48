import express from 'express';

import { withListening } from '../../test/support/http';
import { sendJson } from './json-response';

/** One express app like the api's (ETags off) answering the same result through res.json and through sendJson. */
async function withApp(run: (base: string) => Promise<void>): Promise<void> {
  const app = express();
  app.set('etag', false);
  const body = { user: { id: 'u-1', email: 'zoë@example.com', organizations: [{ id: 'o', role: 'owner' }] } };
  app.all('/express/:status', (req, res) => void res.status(Number(req.params.status)).json(body));
  app.all('/fast/:status', (req, res) => sendJson(res, Number(req.params.status), body));
  app.all('/typed', (_req, res) => {
    res.setHeader('content-type', 'application/problem+json');
    sendJson(res, 200, body);
  });
  await withListening(app, run);
}

async function answer(url: string, method = 'GET') {
  const res = await fetch(url, { method });
  const headers = Object.fromEntries(res.headers);
  delete headers.date;
  return { status: res.status, headers, text: await res.text() };
}

describe('JSON answers of the operations', () => {
  it.each([
    ['GET', 200],
    ['GET', 201],
    ['GET', 404],
    ['HEAD', 200],
    ['GET', 204],
  ])('%s with status %i: the same status, headers and bytes as res.json', async (method, status) => {
    await withApp(async (base) => {
      expect(await answer(`${base}/fast/${status}`, method)).toEqual(await answer(`${base}/express/${status}`, method));
    });
  });

  it('keep a content type the handler chose (with express charset rules)', async () => {
    await withApp(async (base) => {
      const res = await fetch(`${base}/typed`);
      expect(res.headers.get('content-type')).toBe('application/problem+json; charset=utf-8');
      expect(JSON.parse(await res.text())).toEqual({ user: expect.objectContaining({ id: 'u-1' }) });
    });
  });
});
