/**
 * Integration harness: a real local stack (dynalite + fauxqs + the real handlers) per test file, on
 * random loopback ports, with a throwaway data dir and generated demo credentials. The poller is
 * driven by hand so tests decide exactly when the consumer runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { decodeInboxRow } from '../../lambdas/adapters/dynamodb-inbox.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { SignedDemoRequest } from '../../lib/demo/types.js';
import { ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { startLocalRuntime, type LocalRuntime, type LocalRuntimeOptions } from '../../lib/local/runtime.js';

export interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

/** Captures log lines so tests can assert on them (and that no secret ever reaches a log). */
export function captureLog(): Log & { lines: LogLine[] } {
  const lines: LogLine[] = [];
  return {
    lines,
    info: (message, fields) => lines.push({ level: 'info', message, fields }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields }),
    error: (message, fields) => lines.push({ level: 'error', message, fields }),
  };
}

export interface TestStack extends LocalRuntime {
  log: ReturnType<typeof captureLog>;
  post(provider: string, request: SignedDemoRequest | { headers: Record<string, string>; body: string | Buffer }): Promise<{ status: number; body: any }>;
  sign(provider: string, kind: ActionableKind, email: string, nowMs?: number): SignedDemoRequest;
  /** Polls until the queue is empty and nothing is in flight. */
  drain(): Promise<number>;
  inboxRows(): Promise<Record<string, any>[]>;
  record(email: string): Promise<Record<string, any> | undefined>;
  queueDepth(): Promise<{ visible: number; inFlight: number; dlq: number }>;
}

export async function startTestStack(options: LocalRuntimeOptions & { keepDataDir?: string } = {}): Promise<TestStack> {
  const dataDir = options.keepDataDir ?? options.dataDir ?? mkdtempSync(join(tmpdir(), 'ratchet-it-'));
  const log = captureLog();
  const runtime = await startLocalRuntime({
    port: 0,
    persist: options.persist ?? false,
    background: false,
    writeStateFile: false,
    retryDelaySeconds: 0,
    log,
    ...options,
    env: { AWS_REGION: 'us-east-1', ...options.env },
    dataDir,
  });
  const demo = ensureDemoCredentials(dataDir);

  const stack: TestStack = {
    ...runtime,
    log,
    async post(provider, request) {
      const response = await fetch(`${runtime.url}/webhooks/${provider}`, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    },
    sign(provider, kind, email, nowMs = Date.now()) {
      const signer = findDemoSigner(provider);
      if (!signer) throw new Error(`no demo signer for ${provider}`);
      return signer.sign(kind, email, demo[provider]!, nowMs);
    },
    async drain() {
      let handled = 0;
      for (let idle = 0; idle < 3; ) {
        const n = await runtime.poller.pollOnce(0);
        handled += n;
        if (n === 0) {
          const depth = await stack.queueDepth();
          if (depth.visible === 0 && depth.inFlight === 0) idle++;
          else await new Promise((r) => setTimeout(r, 50));
        }
      }
      return handled;
    },
    async inboxRows() {
      const page = await runtime.clients.doc.send(new ScanCommand({ TableName: runtime.config.inboxTable }));
      // Decoded, with the first event as `event` for convenience; `item` is the row as stored.
      return (page.Items ?? []).flatMap((item) => {
        const row = decodeInboxRow(item);
        return row ? [{ ...row, event: row.events[0]!, item }] : [];
      });
    },
    async record(email) {
      const page = await runtime.clients.doc.send(
        new ScanCommand({
          TableName: runtime.config.suppressionTable,
          FilterExpression: 'email = :e',
          ExpressionAttributeValues: { ':e': email },
        }),
      );
      return page.Items?.[0];
    },
    async queueDepth() {
      const attrs = async (url: string) =>
        (
          await runtime.clients.sqs.send(
            new GetQueueAttributesCommand({
              QueueUrl: url,
              AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
            }),
          )
        ).Attributes ?? {};
      const main = await attrs(runtime.queues.queueUrl);
      const dlq = await attrs(runtime.queues.deadLetterUrl);
      return {
        visible: Number(main.ApproximateNumberOfMessages ?? 0),
        inFlight: Number(main.ApproximateNumberOfMessagesNotVisible ?? 0),
        dlq: Number(dlq.ApproximateNumberOfMessages ?? 0),
      };
    },
    async stop() {
      await runtime.stop();
      if (!options.keepDataDir && !options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return stack;
}

/** Injects failures into a real SDK client for chosen commands: the emulator cannot be made to fail on cue. */
export function injectFault(
  client: { middlewareStack: { add: (...args: any[]) => void; remove: (name: string) => boolean } },
  options: { command: string; times: number; error?: () => Error; when?: (input: any) => boolean },
): { hits: number; remove(): void } {
  const name = `fault-${options.command}-${Math.random().toString(36).slice(2)}`;
  const state = { hits: 0, remove: () => void client.middlewareStack.remove(name) };
  client.middlewareStack.add(
    (next: (args: any) => Promise<any>, context: { commandName?: string }) => async (args: { input: any }) => {
      if (context.commandName === options.command && state.hits < options.times && (options.when?.(args.input) ?? true)) {
        state.hits++;
        throw options.error?.() ?? Object.assign(new Error(`injected ${options.command} failure`), { name: 'InternalServerError', $fault: 'server' });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return state;
}
