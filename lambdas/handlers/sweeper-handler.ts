/** Retired with the sweeper (see wiring/sweeper.ts): a scheduled call does nothing. */
import type { SweeperDeps } from '../adapters/wiring/sweeper.js';

export function createSweeperHandler(_deps: SweeperDeps): () => Promise<{ resent: 0; gaveUp: 0 }> {
  return async () => ({ resent: 0, gaveUp: 0 });
}
