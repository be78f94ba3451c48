import { rss, type SourceSample } from '../../../../test/conformance/source-sample';

const sample: SourceSample = {
  url: 'https://feeds.sample.test/feed.xml',
  options: { maxItems: 10 },
  upstream({ path }, revision) {
    if (path !== '/feed.xml') return undefined;
    return rss('Garden Journal', [
      { id: 'post-1', title: 'Tomatoes', body: '<p>Tomatoes need <b>full sun</b> and regular watering.</p>' },
      { id: 'post-2', title: 'Compost', body: revision === 1 ? '<p>Compost turns scraps into soil.</p>' : '<p>Compost needs air.</p>' },
    ]);
  },
};
export default sample;
