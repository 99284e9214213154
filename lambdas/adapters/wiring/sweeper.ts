/**
 * Retired: enqueue-before-store leaves nothing to sweep (README, "How no event is lost"). Kept only so
 * the stack's sweeper entry still builds until the stack drops it; it does nothing.
 */
import type { Clients, RuntimeConfig } from './config.js';

export interface SweeperDeps {
  retired: true;
}

export function buildSweeperDeps(_config: RuntimeConfig, _clients: Clients): SweeperDeps {
  return { retired: true };
}
