import { type SourceSample } from '../../../../test/conformance/source-sample';
import { bakerProfile, instagramUpstream } from './profile';

const profile = bakerProfile('samplebakes', 4, '1784149999');

const sample: SourceSample = {
  url: 'https://www.instagram.com/SampleBakes/',
  options: { maxItems: 4 },
  upstream({ path, query }, revision) {
    if (revision === 2)
      return instagramUpstream(
        [{ ...profile, posts: [{ ...profile.posts[0], caption: 'The recipe changed: less salt.' }, ...profile.posts.slice(1)] }],
        path,
        query,
      );
    return instagramUpstream([profile], path, query);
  },
};
export default sample;
