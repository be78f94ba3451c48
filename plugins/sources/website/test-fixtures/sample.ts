import { html, para, type SourceSample } from '../../../../test/conformance/source-sample';

/** A homepage linking to its about and FAQ pages. */
const sample: SourceSample = {
  url: 'https://brand.sample.test/',
  upstream({ path }, revision) {
    if (path === '/') return html('Brand', `<h1>Brand</h1>${para('Homepage')}<a href="/about">About us</a> <a href="/faq">FAQ</a>`);
    if (path === '/about') return html('About', `<h1>About</h1>${para('Company history')}`);
    if (path === '/faq') return html('FAQ', `<h1>FAQ</h1>${para(revision === 1 ? 'Returns within 30 days' : 'Returns within 60 days')}`);
    return undefined;
  },
};
export default sample;
