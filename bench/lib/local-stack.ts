/**
 * A throwaway local stack for the pipeline benchmarks: the integration tests' stack
 * (test/support/local-stack.ts) with silent logging, registered for Ctrl-C cleanup, and the poller
 * off until a benchmark starts it.
 */
import { type LocalStack, SILENT_LOG, startLocalStack } from '../../test/support/local-stack.js';
import { onCleanup } from './cleanup.js';

export { SILENT_LOG };

export type BenchStack = LocalStack;

/** `background`: run the poller (the consumer drains while the section measures), as `npm start` does. */
export function startBenchStack(options: { background?: boolean } = {}): Promise<BenchStack> {
  return startLocalStack({
    background: options.background ?? false,
    log: SILENT_LOG,
    tempDirPrefix: 'ratchet-bench-',
    onCleanup,
  });
}

/** Runs `fn` against a fresh stack and always stops it. */
export async function withBenchStack<T>(
  fn: (stack: BenchStack) => Promise<T>,
  options: { background?: boolean } = {},
): Promise<T> {
  const stack = await startBenchStack(options);
  try {
    return await fn(stack);
  } finally {
    await stack.stop();
  }
}
