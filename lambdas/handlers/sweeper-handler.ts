/** Schedule → the sweeper. */
import { sweepPending, type SweeperDeps } from '../core/pipeline/sweep.js';

export function createSweeperHandler(deps: SweeperDeps): () => Promise<{ resent: number }> {
  return () => sweepPending(deps);
}
