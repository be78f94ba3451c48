import { publicLaneChannel } from '../_shared/public-lane';

export default publicLaneChannel('web', "The agent's public web page (public chat lane; the visitor's anonymousId is the identity)");
