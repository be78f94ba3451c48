import { CheerioHtmlReader } from '../../adapters/documents/html.reader';
import type { Actor } from '../../core/identity/actor';
import { lightScrape } from '../../core/sources/light-scrape';
import { DEFAULT_SOURCES_SETTINGS, type SourcesDeps } from '../../core/sources/sources-deps';
import { createSourceRegistry } from '../../plugins/sources';
import { fixtureFetcher } from './fixtures/routing-fetcher';
import { type FixtureSite, startFixtureSite } from './fixtures/site';

const actor: Actor = {
  userId: 'u1',
  email: 'u@example.com',
  displayName: 'U',
  platformRole: 'user',
  organizationId: 'o1',
  orgRole: 'member',
} as Actor;

describe('lightScrape use case', () => {
  let site: FixtureSite;
  let deps: SourcesDeps;
  beforeAll(async () => {
    site = await startFixtureSite();
    deps = {
      knowledge: undefined as never, // not used by light scrape
      registry: createSourceRegistry(),
      fetcher: fixtureFetcher(site.port),
      html: new CheerioHtmlReader(),
      settings: { ...DEFAULT_SOURCES_SETTINGS, lightScrape: { ...DEFAULT_SOURCES_SETTINGS.lightScrape, timeoutMs: 2000 } },
      log: () => undefined,
    };
  });
  afterAll(() => site.close());

  it('reads the URLs concurrently (a server that answers only once three requests wait lets all through)', async () => {
    const { results } = await lightScrape(
      deps,
      actor,
      [1, 2, 3].map((i) => ({ url: `${site.base}/gate?n=${i}`, sourceType: 'url' })),
    );
    expect(results.map((r) => r.error)).toEqual([null, null, null]);
    expect(results.every((r) => r.textContent?.includes('Gate opened'))).toBe(true);
  });

  it('gives up on a URL after its time bound, without failing the others', async () => {
    const { results } = await lightScrape(deps, actor, [
      { url: `${site.base}/slow`, sourceType: 'url' },
      { url: `${site.base}/faq`, sourceType: 'url' },
    ]);
    expect(results[0]).toMatchObject({
      url: `${site.base}/slow`,
      textContent: null,
      error: expect.stringMatching(/timed out|longer than/),
    });
    expect(results[1]).toMatchObject({ error: null, title: 'FAQ' });
  });

  it('refuses more than 10 URLs and an actor without an organization', async () => {
    const eleven = Array.from({ length: 11 }, () => ({ url: `${site.base}/faq`, sourceType: 'url' }));
    await expect(lightScrape(deps, actor, eleven)).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(
      lightScrape(deps, { ...actor, organizationId: null, orgRole: null }, [{ url: `${site.base}/faq`, sourceType: 'url' }]),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});
