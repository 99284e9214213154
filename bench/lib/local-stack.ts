/**
 * A throwaway local stack for the pipeline benchmarks: the real local runtime (dynalite + fauxqs + the
 * same edge and consumer handlers the Lambdas run, all in this process) on a random loopback port,
 * a temp data dir with freshly generated demo credentials, silent logging, and the poller off until a
 * benchmark starts it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { ensureDemoCredentials, type DemoCredentialSet } from '../../lib/local/demo-credentials.js';
import { startLocalRuntime, type LocalRuntime } from '../../lib/local/runtime.js';
import { onCleanup } from './cleanup.js';

export const SILENT_LOG: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface BenchStack {
  runtime: LocalRuntime;
  demo: DemoCredentialSet;
  queueDepth(): Promise<{ visible: number; inFlight: number; dlq: number }>;
  stop(): Promise<void>;
}

/** `background`: run the poller (the consumer drains while the section measures), as `npm start` does. */
export async function startBenchStack(options: { background?: boolean } = {}): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-bench-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  const cancelDirCleanup = onCleanup(removeDir);
  let runtime: LocalRuntime;
  try {
    runtime = await startLocalRuntime({
      port: 0,
      dataDir,
      persist: false,
      background: options.background ?? false,
      writeStateFile: false,
      log: SILENT_LOG,
      env: { AWS_REGION: 'us-east-1' },
    });
  } catch (error) {
    removeDir();
    cancelDirCleanup();
    throw error;
  }
  const cancelRuntimeCleanup = onCleanup(() => runtime.stop());
  const demo = ensureDemoCredentials(dataDir);

  const attributes = async (url: string) =>
    (
      await runtime.clients.sqs.send(
        new GetQueueAttributesCommand({
          QueueUrl: url,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
        }),
      )
    ).Attributes ?? {};

  return {
    runtime,
    demo,
    async queueDepth() {
      const main = await attributes(runtime.queues.queueUrl);
      const dlq = await attributes(runtime.queues.deadLetterUrl);
      return {
        visible: Number(main.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(main.ApproximateNumberOfMessagesNotVisible ?? 0),
        dlq: Number(dlq.ApproximateNumberOfMessages ?? 0),
      };
    },
    async stop() {
      try {
        await runtime.stop();
      } finally {
        cancelRuntimeCleanup();
        removeDir();
        cancelDirCleanup();
      }
    },
  };
}

/** Runs `fn` against a fresh stack and always stops it. */
export async function withBenchStack<T>(fn: (stack: BenchStack) => Promise<T>, options: { background?: boolean } = {}): Promise<T> {
  const stack = await startBenchStack(options);
  try {
    return await fn(stack);
  } finally {
    await stack.stop();
  }
}
