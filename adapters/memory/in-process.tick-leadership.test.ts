import { tickLeadershipConformance } from '../../test/conformance/tick-leadership.conformance';
import { InProcessTickLeadership } from './in-process.tick-leadership';

// One instance per process (the adapters container's singleton): every consumer of the process shares it.
tickLeadershipConformance('in-process', async () => {
  const leadership = new InProcessTickLeadership();
  return { first: leadership, second: leadership };
});
