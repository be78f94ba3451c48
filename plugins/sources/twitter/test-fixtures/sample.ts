import { json, type SourceSample } from '../../../../test/conformance/source-sample';

/** A post read through X's public oEmbed endpoint. */
const sample: SourceSample = {
  url: 'https://x.com/jackfix/status/123',
  upstream({ host, path, query }, revision) {
    if (host !== 'publish.twitter.com' || path !== '/oembed' || !/\/status\/123$/.test(query.get('url') ?? '')) return undefined;
    const text = revision === 1 ? 'Shipping the new retrieval engine today' : 'Shipped the new retrieval engine';
    return json({
      author_name: 'Jack Fixture',
      html: `<blockquote class="twitter-tweet"><p lang="en">${text}</p>&mdash; Jack Fixture (@jackfix) <a href="https://twitter.com/jackfix/status/123">May 8, 2024</a></blockquote>`,
    });
  },
};
export default sample;
