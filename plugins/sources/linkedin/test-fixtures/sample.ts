import { html, type SourceSample } from '../../../../test/conformance/source-sample';

/** A public profile that LinkedIn serves with its OpenGraph description. */
const sample: SourceSample = {
  url: 'https://www.linkedin.com/in/jane-doe',
  upstream({ host, path }, revision) {
    if (host !== 'www.linkedin.com' || path !== '/in/jane-doe') return undefined;
    const description = revision === 1 ? 'Head of data at Fixture Corp.' : 'Chief data officer at Fixture Corp.';
    return html(
      'Jane Doe | LinkedIn',
      '<p>Sign in to see more.</p>',
      `<meta property="og:title" content="Jane Doe | LinkedIn"><meta property="og:description" content="${description}">`,
    );
  },
};
export default sample;
