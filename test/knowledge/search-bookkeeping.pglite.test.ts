/**
 * A search's bookkeeping (search log rows, billing event): a search that moves no money answers without waiting
 * for it, so a failed write is logged and the answer stands; a paid search waits for it, so its failure fails the
 * search. The failure is real: the search log's table is renamed away for the duration.
 */
import { searchKnowledge } from '../../core/knowledge/search';
import { createKnowledgeHarness, type KnowledgeHarness, paidEmbedder } from './knowledge-harness';

async function withoutSearchLogTable<T>(h: KnowledgeHarness, run: () => Promise<T>): Promise<T> {
  await h.db.knex.raw('ALTER TABLE knowledge_search_log RENAME TO knowledge_search_log_away');
  try {
    return await run();
  } finally {
    await h.db.knex.raw('ALTER TABLE knowledge_search_log_away RENAME TO knowledge_search_log');
  }
}

describe('search bookkeeping', () => {
  let free: KnowledgeHarness;
  let charged: KnowledgeHarness;
  beforeAll(async () => {
    free = await createKnowledgeHarness();
    charged = await createKnowledgeHarness({ embedder: paidEmbedder, dimensions: 64 });
  });
  afterAll(async () => {
    await free?.close();
    await charged?.close();
  });

  it('a free search answers while its log is written, and a read after the answer sees the row', async () => {
    const { organizationId, owner } = await free.newOrganization('free');
    const kb = await free.newKnowledgeBase(organizationId);
    const r = await searchKnowledge(free.deps, owner, { knowledgeBaseIds: [kb.id], query: 'lighthouse keepers' });
    expect(r.results).toEqual([]);
    const log = await free.deps.store.repos.searchLog.list(organizationId, kb.id, { limit: 5, offset: 0 });
    expect(log.items.map((e) => e.query)).toEqual(['lighthouse keepers']);
  });

  it('a free search whose log cannot be written still answers, and the failure is logged', async () => {
    const { organizationId, owner } = await free.newOrganization('free-broken');
    const kb = await free.newKnowledgeBase(organizationId);
    await withoutSearchLogTable(free, async () => {
      await expect(searchKnowledge(free.deps, owner, { knowledgeBaseIds: [kb.id], query: 'lost log' })).resolves.toMatchObject({
        results: [],
      });
      // the write fails after the answer: wait for its warning (bounded) before the table comes back
      for (let i = 0; i < 100 && !free.logs.some((l) => l.level === 'warn'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    });
    expect(free.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', message: expect.stringMatching(/could not record the search log/) }),
    );
  });

  it('a paid search waits for its bookkeeping, so a failed write fails the search', async () => {
    const { organizationId, owner } = await charged.newOrganization('paid');
    const kb = await charged.newKnowledgeBase(organizationId);
    await withoutSearchLogTable(charged, async () => {
      await expect(searchKnowledge(charged.deps, owner, { knowledgeBaseIds: [kb.id], query: 'paid and lost' })).rejects.toThrow(
        /knowledge_search_log/,
      );
    });
  });
});
