import { publicLaneChannel } from '../_shared/public-lane';

export default publicLaneChannel('widget', 'The embeddable chat widget (public chat lane; the visitor anonymousId is the identity)');
