import type { SourceSample } from '../../../../test/conformance/source-sample';
import { NOTION_DATABASE_ID, notionApi } from './fake-notion';

const TOKEN = 'secret_sample-integration-token-0123456789';

/** The conformance suite's upstream for the example: api.notion.com, answering only the configured token. */
const sample: SourceSample = {
  url: `https://www.notion.so/acme/Handbook-${NOTION_DATABASE_ID}`,
  secrets: { NOTION_API_TOKEN: TOKEN },
  upstream: (request, revision) =>
    request.host === 'api.notion.com' ? notionApi(request, TOKEN, revision) : undefined,
};
export default sample;
