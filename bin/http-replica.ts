// An HTTP replica of `platform start` on a database server: forked by the primary process, never run by hand.
import { runHttpReplica } from '../app/http-replica';

runHttpReplica().catch((e) => {
  process.stderr.write(`HTTP replica failed: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
