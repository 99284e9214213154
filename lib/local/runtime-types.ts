/** What `startLocalRuntime` (runtime.ts) takes and gives back, kept apart so the runtime itself stays short. */
import type { MemoryCounters } from '../../lambdas/adapters/observability.js';
import type { Clients, RuntimeConfig } from '../../lambdas/adapters/wiring.js';
import type { ConsumerDeps } from '../../lambdas/core/pipeline/consume.js';
import type { EdgeDeps } from '../../lambdas/core/pipeline/edge.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import type { SyncProviderName, SyncTarget } from '../../lambdas/core/sync/target.js';
import type { Queues } from './bootstrap.js';
import type { QueuePoller } from './poller.js';
import type { LocalReputation } from './reputation.js';
import type { LocalSync } from './sync.js';

type Env = Record<string, string | undefined>;

export interface LocalRuntimeOptions {
  /** Defaults to process.env. */
  env?: Env;
  /** 0 picks a free port. Defaults to PORT or 3000. */
  port?: number;
  /** Defaults to RATCHET_DATA_DIR or `.data`. */
  dataDir?: string;
  /** Keep dynalite's store on disk under the data dir (default true). */
  persist?: boolean;
  /**
   * Start the background work (default true): the pollers, the sync sweeper, reputation's schedule and
   * the inbox stream's batches. Without it nothing runs by itself; tests and the bench drive each by hand.
   */
  background?: boolean;
  pollerConcurrency?: number;
  /** Receive loops on the SES feed (default SES_FEED.maxConcurrency, like the event source's limit). */
  sesFeedConcurrency?: number;
  retryDelaySeconds?: number;
  /** Write `.data/local.json` for the CLIs (default true). */
  writeStateFile?: boolean;
  log?: Log;
  clients?: Partial<Clients>;
  /** Overrides for the webhook edge only (its queue, clock, providers...). */
  edge?: Partial<EdgeDeps>;
  /** Overrides for the unsubscribe endpoint's own edge, kept apart from `edge` so a fault injected there stays there. */
  unsubscribe?: Partial<EdgeDeps>;
  consumer?: Partial<ConsumerDeps>;
  /** Sync targets to use instead of the provider adapters (tests). */
  syncTargets?: ReadonlyMap<SyncProviderName, SyncTarget>;
  /** The sync sweeper's interval (default 60 s). */
  syncSweepIntervalMs?: number;
  /** The reputation evaluator's interval (default the stack's schedule, 5 minutes). */
  reputationIntervalMs?: number;
}

export interface LocalRuntime {
  url: string;
  port: number;
  dataDir: string;
  config: RuntimeConfig;
  clients: Clients;
  queues: Queues;
  counters: MemoryCounters;
  /** Providers running on generated demo credentials. */
  usingDemo: string[];
  /** Where unsubscribe links point, and whether they are signed with the generated demo key. */
  unsubscribe: { baseUrl: string; usingDemoKey: boolean };
  poller: QueuePoller;
  /** Drains the SES feed into the edge, as the SES feed's event source does. */
  sesFeed: QueuePoller;
  /** Present when SYNC_PROVIDERS is set. */
  sync?: LocalSync;
  /** The reputation evaluator on an interval; `evaluate()` runs it once now. */
  reputation: LocalReputation;
  stop(): Promise<void>;
  /** Clears the state file and releases the lock at once, for a process exiting before `stop` finished. */
  abandon(): void;
}
