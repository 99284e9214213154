/**
 * `npm start`'s stand-ins for reputation's managed parts: the inbox stream and its consumer
 * (inbox-stream.ts: the same counter handler, fed the rows the inbox stores), and the scheduled
 * evaluator: the same evaluation on an interval (the stack's schedule, 5 minutes, unless
 * REPUTATION_EVALUATE_SECONDS says otherwise), its announcement the one WARN line per change of state
 * the evaluator writes. No SNS locally.
 */

import { buildReputationEvaluator } from '../../lambdas/adapters/wiring/reputation.js';
import type { Clients, RuntimeConfig } from '../../lambdas/adapters/wiring.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { type Evaluation, evaluateReputation } from '../../lambdas/core/reputation/evaluate.js';
import { REPUTATION } from '../definitions.js';
import type { LocalInboxStream } from './inbox-stream.js';

export interface LocalReputation {
  /** Counts what the inbox stored so far (the local stream's buffer, handed to the counter now). */
  flush(): Promise<void>;
  /** One evaluation now (tests, and each tick), of everything stored so far. */
  evaluate(): Promise<Evaluation>;
  start(): void;
  stop(): Promise<void>;
}

export function startLocalReputation(options: {
  config: RuntimeConfig;
  clients: Pick<Clients, 'doc'>;
  log: Log;
  /** The local stream the inbox records its rows on. */
  stream: LocalInboxStream;
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
    // What the stream holds is counted first, as it would be on AWS within the mapping's batching window.
    const run = options.stream.flush().then(() => evaluateReputation(deps));
    running = run.catch(() => undefined);
    return run;
  };
  return {
    flush: () => options.stream.flush(),
    evaluate,
    start() {
      options.stream.start();
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
      await options.stream.stop();
    },
  };
}
