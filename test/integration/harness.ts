/**
 * Integration harness: a real local stack (test/support/local-stack.ts: dynalite + fauxqs + the real
 * handlers) per test file, on random loopback ports, with a throwaway data dir and generated demo
 * credentials, its log captured. The poller is driven by hand so tests decide exactly when the consumer
 * runs, and failed messages are retried at once.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { readInboxRow } from '../../lambdas/adapters/inbox-schema.js';
import type { ActionableKind } from '../../lambdas/core/event.js';
import type { Log } from '../../lambdas/core/pipeline/ports.js';
import { ratchetCommand } from '../../lib/cli/ratchet.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { SignedDemoRequest } from '../../lib/demo/types.js';
import { ensureTables } from '../../lib/local/bootstrap.js';
import type { LocalState } from '../../lib/local/state.js';
import { type LocalStack, type LocalStackOptions, startLocalStack } from '../support/local-stack.js';

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

export interface TestStack extends LocalStack {
  log: ReturnType<typeof captureLog>;
  post(
    provider: string,
    request: SignedDemoRequest | { headers: Record<string, string>; body: string | Buffer },
  ): Promise<{ status: number; body: any }>;
  sign(provider: string, kind: ActionableKind, email: string, nowMs?: number): SignedDemoRequest;
  /** Polls until the queue is empty and nothing is in flight. */
  drain(): Promise<number>;
  /** Puts each body on the SES feed as SNS would (raw delivery off: the body is the signed envelope); resolves with their SQS message ids. */
  sendToFeed(...bodies: string[]): Promise<string[]>;
  /** Polls the SES feed until it is empty and nothing is in flight; resolves with how many messages it handled. */
  drainFeed(): Promise<number>;
  inboxRows(): Promise<Record<string, any>[]>;
  record(email: string): Promise<Record<string, any> | undefined>;
  /** What the CLIs need to reach this stack (what `npm start`'s state file tells them), plus `extra`. */
  cliEnv(extra?: Record<string, string>): Record<string, string>;
  /** The `.data/local.json` that `npm start` writes for this stack (lib/local/runtime.ts), for `writeState`. */
  localState(): LocalState;
}

/** `dataDir`: run on (and keep) that data dir, e.g. to restart on it; otherwise a temp dir removed on stop. */
export async function startTestStack(options: LocalStackOptions = {}): Promise<TestStack> {
  const log = captureLog();
  const local = await startLocalStack({ retryDelaySeconds: 0, log, tempDirPrefix: 'ratchet-it-', ...options });

  const stack: TestStack = {
    ...local,
    log,
    async post(provider, request) {
      const response = await fetch(`${local.url}/webhooks/${provider}`, {
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
      return signer.sign(kind, email, local.demo[provider]!, nowMs);
    },
    async drain() {
      let handled = 0;
      for (let idle = 0; idle < 3; ) {
        const n = await local.poller.pollOnce(0);
        handled += n;
        if (n === 0) {
          const depth = await stack.queueDepth();
          if (depth.visible === 0 && depth.inFlight === 0) idle++;
          else await new Promise((r) => setTimeout(r, 50));
        }
      }
      return handled;
    },
    async sendToFeed(...bodies) {
      const ids: string[] = [];
      for (const body of bodies) {
        const sent = await local.clients.sqs.send(
          new SendMessageCommand({ QueueUrl: local.queues.sesQueueUrl, MessageBody: body }),
        );
        ids.push(sent.MessageId!);
      }
      return ids;
    },
    async drainFeed() {
      let handled = 0;
      for (let idle = 0; idle < 3; ) {
        const n = await local.sesFeed.pollOnce(0);
        handled += n;
        if (n === 0) {
          const depth = await stack.feedDepth();
          if (depth.visible === 0 && depth.inFlight === 0) idle++;
          else await new Promise((r) => setTimeout(r, 50));
        }
      }
      return handled;
    },
    async inboxRows() {
      const page = await local.clients.doc.send(new ScanCommand({ TableName: local.config.inboxTable }));
      // Decoded, with the first event as `event` for convenience; `item` is the row as stored.
      return (page.Items ?? []).flatMap((item) => {
        const row = readInboxRow(item);
        return row ? [{ ...row, event: row.events[0]!, item }] : [];
      });
    },
    async record(email) {
      const page = await local.clients.doc.send(
        new ScanCommand({
          TableName: local.config.suppressionTable,
          FilterExpression: 'email = :e',
          ExpressionAttributeValues: { ':e': email },
        }),
      );
      return page.Items?.[0];
    },
    localState() {
      return {
        pid: process.pid,
        url: local.url,
        port: local.port,
        region: local.config.region,
        dynamoEndpoint: local.config.dynamoEndpoint!,
        sqsEndpoint: local.config.sqsEndpoint!,
        inboxTable: local.config.inboxTable,
        suppressionTable: local.config.suppressionTable,
        queueUrl: local.queues.queueUrl,
        deadLetterUrl: local.queues.deadLetterUrl,
        sesQueueUrl: local.queues.sesQueueUrl,
        sesDeadLetterUrl: local.queues.sesDeadLetterUrl,
        ...(local.sync
          ? {
              syncQueueUrl: local.sync.queueUrl,
              syncDeadLetterUrl: local.sync.deadLetterUrl,
              syncProviders: local.sync.worker.settings.providers,
            }
          : {}),
      };
    },
    cliEnv(extra = {}) {
      return {
        DYNAMODB_ENDPOINT: local.config.dynamoEndpoint!,
        SQS_ENDPOINT: local.config.sqsEndpoint!,
        QUEUE_URL: local.queues.queueUrl,
        DLQ_URL: local.queues.deadLetterUrl,
        INBOX_TABLE: local.config.inboxTable,
        SUPPRESSION_TABLE: local.config.suppressionTable,
        RATCHET_DATA_DIR: local.dataDir,
        AWS_REGION: 'us-east-1',
        ...extra,
      };
    },
  };
  return stack;
}

/** `ratchet <argv>` in this process with exactly `env`, its output captured (no progress line). */
export async function ratchet(
  env: Record<string, string>,
  ...argv: string[]
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await ratchetCommand(argv, env, {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    progressTty: false,
  });
  return { code, out: out.join('\n'), err: err.join('\n') };
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
      if (
        context.commandName === options.command &&
        state.hits < options.times &&
        (options.when?.(args.input) ?? true)
      ) {
        state.hits++;
        throw (
          options.error?.() ??
          Object.assign(new Error(`injected ${options.command} failure`), {
            name: 'InternalServerError',
            $fault: 'server',
          })
        );
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  return state;
}

/** An inbox and a suppression table on a DynamoDB endpoint (dynalite here), created the way `npm start` creates them. */
export async function createTables(endpoint: string, names: { inbox: string; suppression: string }): Promise<void> {
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  try {
    await ensureTables(client, names);
  } finally {
    client.destroy();
  }
}
