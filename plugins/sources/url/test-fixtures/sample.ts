import { html, para, type SourceSample } from '../../../../test/conformance/source-sample';

/** A guide page and the page it links to (crawlDepth 1). */
const sample: SourceSample = {
  url: 'https://docs.sample.test/guide',
  options: { crawlDepth: 1, maxPages: 3 },
  upstream({ path }, revision) {
    if (path === '/guide') return html('Guide', `<h1>Guide</h1>${para('Getting started')}<a href="/guide/setup">Setup</a>`);
    if (path === '/guide/setup') return html('Setup', `<h1>Setup</h1>${para(revision === 1 ? 'Installing the tool' : 'Installing version two')}`);
    return undefined;
  },
};
export default sample;
