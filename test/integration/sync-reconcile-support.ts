/**
 * The local runtime and the provider fakes as the reconcile tests use them: sync on for every fake, the
 * CLI's environment pointing at the runtime's sync queues, and a drain of the sync queue until a
 * condition holds.
 */
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { startTestStack, type TestStack } from './harness.js';

export interface ReconcileStack {
  fakes: ProviderFakes;
  stack: TestStack;
  /** The CLI's environment: the stack's, the fakes', `settings`, and the sync queues. */
  env: Record<string, string>;
}

export async function startReconcileStack(settings: Record<string, string>): Promise<ReconcileStack> {
  const fakes = await startProviderFakes();
  const config = { ...fakes.env, ...settings };
  const stack = await startTestStack({ env: config });
  const env = stack.cliEnv({
    ...config,
    SYNC_QUEUE_URL: stack.sync!.queueUrl,
    SYNC_DEAD_LETTER_QUEUE_URL: stack.sync!.deadLetterUrl,
  });
  return { fakes, stack, env };
}

export async function stopReconcileStack(world: Partial<ReconcileStack>): Promise<void> {
  await world.stack?.stop();
  await world.fakes?.close();
}

/** Works the sync queue until `done()` holds; throws after `timeoutMs`. */
export async function syncUntil(stack: TestStack, done: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error('sync did not finish in time');
    if ((await stack.sync!.pollOnce(0)) === 0) await new Promise((r) => setTimeout(r, 50));
  }
}
