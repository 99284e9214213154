/**
 * `npm start`'s stand-in for the scheduled evaluator: the same evaluation on an interval (the stack's
 * schedule, 5 minutes, unless REPUTATION_EVALUATE_SECONDS says otherwise), its announcement the one
 * WARN line per change of state the evaluator writes. No SNS locally.
 */

import { buildReputationEvaluator } from '../../lambdas/adapters/wiring/reputation.js';
import type { Clients, RuntimeConfig } from '../../lambdas/adapters/wiring.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { type Evaluation, evaluateReputation } from '../../lambdas/core/reputation/evaluate.js';
import { REPUTATION } from '../definitions.js';

export interface LocalReputation {
  /** One evaluation now (tests, and each tick). */
  evaluate(): Promise<Evaluation>;
  start(): void;
  stop(): Promise<void>;
}

export function startLocalReputation(options: {
  config: RuntimeConfig;
  clients: Pick<Clients, 'doc'>;
  log: Log;
  intervalMs?: number;
  now?: () => number;
}): LocalReputation {
  const deps = buildReputationEvaluator(options.config, options.clients, {
    log: options.log,
    // The local metrics are the WARN lines; the gauges are CloudWatch's.
    publish: () => undefined,
    ...(options.now ? { now: options.now } : {}),
  });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const evaluate = () => {
    const run = evaluateReputation(deps);
    running = run.catch(() => undefined);
    return run;
  };
  return {
    evaluate,
    start() {
      timer = setInterval(
        () => {
          evaluate().catch((error: unknown) =>
            options.log.error('reputation evaluation failed', { error: String(error) }),
          );
        },
        options.intervalMs ?? REPUTATION.evaluateEveryMinutes * 60_000,
      );
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
