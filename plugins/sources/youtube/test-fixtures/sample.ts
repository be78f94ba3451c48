import { type SourceSample } from '../../../../test/conformance/source-sample';
import { cookingChannel, youtubeUpstream } from './channel';

const channel = cookingChannel('samplechef', 4, 'UCsamplechef000000000000');

const sample: SourceSample = {
  url: 'https://www.youtube.com/@SampleChef',
  options: { maxItems: 4 },
  upstream({ path, query }, revision) {
    if (revision === 2 && path === '/api/timedtext' && query.get('v') === channel.videos[0].id)
      return youtubeUpstream([{ ...channel, videos: [{ ...channel.videos[0], captions: ["The recipe changed."] }] }], path, query);
    return youtubeUpstream([channel], path, query);
  },
};
export default sample;
