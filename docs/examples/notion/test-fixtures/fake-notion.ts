/**
 * A fake of the few Notion API calls the example plugin makes (database, query, block children), answering
 * like the real API and only to the right integration token. `revision` 2 edits one page.
 */
import type { SampleReply, SampleRequest } from '../../../../test/conformance/source-sample';

export const NOTION_DATABASE_ID = '0123456789abcdef0123456789abcdef';
const PAGES = [
  { id: '11111111-1111-1111-1111-111111111111', title: 'Onboarding', text: ['Every new hire gets a laptop on day one.', 'Badges are collected at the front desk.'] },
  { id: '22222222-2222-2222-2222-222222222222', title: 'Expenses', text: ['Expense reports are due by the fifth of each month.'] },
];

const json = (value: unknown, status = 200): SampleReply => ({ status, type: 'application/json', body: JSON.stringify(value) });
const rich = (text: string) => [{ type: 'text', plain_text: text, text: { content: text } }];

export function notionApi(request: Pick<SampleRequest, 'path' | 'headers'> & { method: string }, token: string, revision = 1): SampleReply | undefined {
  if (request.headers.authorization !== `Bearer ${token}`) return json({ object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' }, 401);
  const path = request.path.replace(/^\/v1/, '');
  if (request.method === 'GET' && path === `/databases/${NOTION_DATABASE_ID}`) return json({ object: 'database', id: NOTION_DATABASE_ID, title: rich('Handbook') });
  if (request.method === 'POST' && path === `/databases/${NOTION_DATABASE_ID}/query`)
    return json({
      object: 'list',
      results: PAGES.map((p) => ({
        object: 'page',
        id: p.id,
        url: `https://www.notion.so/${p.title}-${p.id.replace(/-/g, '')}`,
        last_edited_time: '2024-05-01T10:00:00.000Z',
        properties: { Name: { id: 'title', type: 'title', title: rich(p.title) } },
      })),
      has_more: false,
    });
  const page = PAGES.find((p) => path === `/blocks/${p.id}/children`);
  if (request.method === 'GET' && page) {
    const text = revision === 2 && page === PAGES[1] ? ['Expense reports are due by the tenth of each month.'] : page.text;
    return json({ object: 'list', results: text.map((t, i) => ({ object: 'block', id: `${page.id}-${i}`, type: 'paragraph', paragraph: { rich_text: rich(t) } })), has_more: false });
  }
  return json({ object: 'error', status: 404, code: 'object_not_found', message: 'Could not find the object.' }, 404);
}
