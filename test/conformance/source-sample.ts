/**
 * A plugin's sample upstream for the source-plugin conformance suite: a folder plugin ships one in
 * `plugins/sources/<type>/test-fixtures/sample.ts`. The suite serves it on a local server; every request
 * the plugin makes (whatever host it names) is answered from it, through the SSRF-guarded fetcher.
 */
export interface SampleRequest {
  method: string;
  /** The host the plugin asked for (`medium.com`, `fixture.myshopify.com`). */
  host: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
}

export interface SampleReply {
  status?: number;
  /** Content type (default text/html). */
  type?: string;
  body: string;
  headers?: Record<string, string>;
}

export interface SourceSample {
  /** The URL a user would add. */
  url: string;
  options?: Record<string, unknown>;
  /** Values of the secrets the plugin declares. */
  secrets?: Record<string, string>;
  /**
   * Answers a request. `revision` starts at 1; at 2 at least one item's content must change (its key staying),
   * so the suite sees that a changed item hashes differently and an unchanged one does not.
   */
  upstream(request: SampleRequest, revision: number): SampleReply | undefined;
}

export const html = (title: string, body: string, head = ''): SampleReply => ({
  type: 'text/html; charset=utf-8',
  body: `<!doctype html><html lang="en"><head><title>${title}</title>${head}</head><body><main>${body}</main></body></html>`,
});

export const json = (value: unknown): SampleReply => ({ type: 'application/json', body: JSON.stringify(value) });

export const xml = (body: string, type = 'application/rss+xml'): SampleReply => ({ type: `${type}; charset=utf-8`, body });

/** A paragraph long enough for the main-content extractor to keep. */
export const para = (topic: string) =>
  `<p>${topic}: a paragraph with enough words to count as real content for the extractor, describing ${topic.toLowerCase()} in some detail.</p>`;

export const rss = (title: string, items: { id: string; title: string; body: string }[]) =>
  xml(`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel><title>${title}</title><link>https://feeds.example/</link>
${items
  .map(
    (i) =>
      `<item><title>${i.title}</title><link>https://feeds.example/${i.id}</link><guid isPermaLink="false">${i.id}</guid><pubDate>Mon, 06 May 2024 10:00:00 GMT</pubDate><dc:creator>Ada</dc:creator><description><![CDATA[${i.body}]]></description></item>`,
  )
  .join('\n')}
</channel></rss>`);
