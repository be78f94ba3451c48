import { rss, type SourceSample } from '../../../../test/conformance/source-sample';

/** medium.com/@alice is read through medium.com/feed/@alice. */
const sample: SourceSample = {
  url: 'https://medium.com/@alice',
  upstream({ host, path }, revision) {
    if (host !== 'medium.com' || path !== '/feed/@alice') return undefined;
    return rss('Stories by Alice on Medium', [
      { id: 'https://medium.com/p/abc', title: 'Typed contracts', body: '<p>A schema shared by server and client prevents drift.</p>' },
      { id: 'https://medium.com/p/def', title: 'Small files', body: revision === 1 ? '<p>Small files are easy to read.</p>' : '<p>Small files merge cleanly.</p>' },
    ]);
  },
};
export default sample;
