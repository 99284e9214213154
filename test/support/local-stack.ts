/**
 * One throwaway local stack, shared by the integration tests (test/integration/harness.ts) and the
 * benchmarks (bench/lib/local-stack.ts): the real local runtime (dynalite + fauxqs + the same edge and
 * consumer handlers the Lambdas run, all in this process, each emulator on a thread of its own) on a
 * random loopback port, a temp data dir with freshly generated demo credentials, no state file, and the
 * poller off unless asked for. Callers choose the log (captured by tests, silent in benchmarks) and how an
 * interrupted run is cleaned up.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { type DemoCredentialSet, ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { type LocalRuntime, type LocalRuntimeOptions, startLocalRuntime } from '../../lib/local/runtime.js';

export const SILENT_LOG: Log = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface LocalStackOptions extends LocalRuntimeOptions {
  /** Where the temp data dir goes when `dataDir` is not given; that one is removed on stop, a given one is kept. */
  tempDirPrefix?: string;
  /** Registers an undo for an interrupted run (the benchmarks' Ctrl-C cleanup) and returns its cancel. */
  onCleanup?: (undo: () => unknown) => () => void;
}

export interface QueueDepth {
  visible: number;
  inFlight: number;
  dlq: number;
}

export interface LocalStack extends LocalRuntime {
  /** The generated demo credentials the runtime verifies against, per provider. */
  demo: DemoCredentialSet;
  queueDepth(): Promise<QueueDepth>;
  /** The SES feed's depth; `dlq` is the SES dead-letter queue's. */
  feedDepth(): Promise<QueueDepth>;
}

const noCleanup = () => () => undefined;

export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const { tempDirPrefix = 'ratchet-stack-', onCleanup = noCleanup, ...runtimeOptions } = options;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), tempDirPrefix));
  const removeDir = () => {
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  const cancelDirCleanup = onCleanup(removeDir);
  let runtime: LocalRuntime;
  try {
    runtime = await startLocalRuntime({
      port: 0,
      persist: false,
      background: false,
      writeStateFile: false,
      log: SILENT_LOG,
      ...runtimeOptions,
      // Never process.env: a developer's DYNAMODB_ENDPOINT or PORT must not leak into a throwaway stack.
      env: { AWS_REGION: 'us-east-1', ...runtimeOptions.env },
      dataDir,
    });
  } catch (error) {
    removeDir();
    cancelDirCleanup();
    throw error;
  }
  const cancelRuntimeCleanup = onCleanup(() => runtime.stop());

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
    ...runtime,
    demo: ensureDemoCredentials(dataDir),
    async queueDepth() {
      const main = await attributes(runtime.queues.queueUrl);
      const dlq = await attributes(runtime.queues.deadLetterUrl);
      return {
        visible: Number(main.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(main.ApproximateNumberOfMessagesNotVisible ?? 0),
        dlq: Number(dlq.ApproximateNumberOfMessages ?? 0),
      };
    },
    async feedDepth() {
      const feed = await attributes(runtime.queues.sesQueueUrl);
      const dlq = await attributes(runtime.queues.sesDeadLetterUrl);
      return {
        visible: Number(feed.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(feed.ApproximateNumberOfMessagesNotVisible ?? 0),
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
