/** Schedule → the sweeper. */
import { sweepPending, type SweepResult, type SweeperDeps } from '../core/pipeline/sweep.js';

export function createSweeperHandler(deps: SweeperDeps): () => Promise<SweepResult> {
  return () => sweepPending(deps);
}
