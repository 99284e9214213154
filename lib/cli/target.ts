/**
 * Which tables and queues the operator CLI talks to, with no setup:
 * 1. DYNAMODB_ENDPOINT set → that endpoint (LocalStack, a dynalite you run yourself);
 * 2. otherwise a running `npm start` (found through `.data/local.json`);
 * 3. otherwise AWS, with the default credential chain and the deployed names
 *    (SUPPRESSION_TABLE / INBOX_TABLE / QUEUE_URL / DLQ_URL / SES_DEAD_LETTER_QUEUE from the stack outputs).
 * RATCHET_TARGET=aws skips step 2, RATCHET_TARGET=local requires it; any other value is a usage error.
 * A `local.json` whose pid is dead (a crash) is not silently skipped: the operator meant the local
 * stack, so we say it is not running.
 * The sync queue is found the same way: SYNC_QUEUE_URL / SYNC_DEAD_LETTER_QUEUE_URL, else the running
 * `npm start`'s, else by name (SYNC_QUEUE_NAME, default as for `npm start`) on SQS_ENDPOINT, or on AWS
 * the stack's `<prefix>-sync`, the prefix taken from SUPPRESSION_TABLE: the name SyncQueueUrl carries.
 * The CLI reads the same variables as `npm start`: with SQS_ENDPOINT set and no QUEUE_URL, the queue
 * is QUEUE_NAME (default as for `npm start`) and its DLQ `<name>-dlq`, looked up by name on that
 * endpoint (Context.resolveQueues); SES_DEAD_LETTER_QUEUE may be a name, looked up the same way.
 */
import { resolve } from 'node:path';
import { INBOX_TABLE, QUEUE, REPUTATION_TABLE, resourceNames, SUPPRESSION_TABLE } from '../definitions.js';
import { readState, statePath } from '../local/state.js';
import { SYNC_QUEUE, syncResourceNames } from '../sync-definitions.js';

export interface Target {
  kind: 'local' | 'endpoint' | 'aws';
  description: string;
  /** What the operator can do when this target does not answer. */
  hint: string;
  region: string;
  dynamoEndpoint?: string;
  sqsEndpoint?: string;
  inboxTable: string;
  suppressionTable: string;
  reputationTable: string;
  queueUrl?: string;
  deadLetterUrl?: string;
  /** With SQS_ENDPOINT and no QUEUE_URL: the queue's name, to look up (its DLQ is `<name>-dlq`). */
  queueName?: string;
  /** The SES (SNS subscription) dead-letter queue: a URL or a queue name. */
  sesDeadLetterQueue?: string;
  /** The sync queue and its dead letters: URLs when known, else the name to look up (DLQ `<name>-dead-letters`). */
  syncQueueUrl?: string;
  syncDeadLetterUrl?: string;
  syncQueueName?: string;
  /** The providers the running local stack syncs to (SYNC_PROVIDERS overrides it). */
  syncProviders?: readonly string[];
}

/** What RATCHET_TARGET may say. */
export const RATCHET_TARGETS = ['aws', 'local'] as const;

/** A variable the operator set that does not parse (RATCHET_TARGET, PORT): exit 2 with this message. */
export class SettingError extends Error {}

/** RATCHET_TARGET, checked: unset is undefined; anything but the allowed values is a SettingError. */
export function targetSetting(env: Env): (typeof RATCHET_TARGETS)[number] | undefined {
  const value = env.RATCHET_TARGET?.trim();
  if (!value) return undefined;
  const allowed: readonly string[] = RATCHET_TARGETS;
  if (!allowed.includes(value)) {
    throw new SettingError(`RATCHET_TARGET must be one of ${RATCHET_TARGETS.join(', ')}, got ${JSON.stringify(value)}`);
  }
  return value as (typeof RATCHET_TARGETS)[number];
}

/** The target cannot be used at all (for example a stale local.json): exit 1 with this message. */
export class TargetError extends Error {}

type Env = Record<string, string | undefined>;

export function resolveTarget(env: Env): Target {
  const setting = targetSetting(env);
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
  const syncQueue = (name: string | undefined) => ({
    syncQueueUrl: env.SYNC_QUEUE_URL || undefined,
    syncDeadLetterUrl: env.SYNC_DEAD_LETTER_QUEUE_URL || undefined,
    ...(env.SYNC_QUEUE_URL || !name ? {} : { syncQueueName: name }),
  });
  const sync = syncQueue(env.SYNC_QUEUE_NAME || SYNC_QUEUE.defaultName);
  const named = {
    inboxTable: env.INBOX_TABLE || INBOX_TABLE.defaultName,
    suppressionTable: env.SUPPRESSION_TABLE || SUPPRESSION_TABLE.defaultName,
    reputationTable: env.REPUTATION_TABLE || REPUTATION_TABLE.defaultName,
    queueUrl: env.QUEUE_URL || undefined,
    deadLetterUrl: env.DLQ_URL || undefined,
    ...(env.SQS_ENDPOINT && !env.QUEUE_URL ? { queueName: env.QUEUE_NAME || QUEUE.defaultName } : {}),
    sesDeadLetterQueue: env.SES_DEAD_LETTER_QUEUE || undefined,
  };
  if (env.DYNAMODB_ENDPOINT) {
    return {
      kind: 'endpoint',
      description: `DYNAMODB_ENDPOINT ${env.DYNAMODB_ENDPOINT}`,
      hint: 'start the service at DYNAMODB_ENDPOINT, or unset DYNAMODB_ENDPOINT to use the local stack or AWS',
      region,
      dynamoEndpoint: env.DYNAMODB_ENDPOINT,
      sqsEndpoint: env.SQS_ENDPOINT,
      ...named,
      ...(env.SQS_ENDPOINT || env.SYNC_QUEUE_URL ? sync : {}),
    };
  }
  const dataDir = resolve(env.RATCHET_DATA_DIR ?? '.data');
  const state = setting === 'aws' ? undefined : readLocalState(dataDir);
  if (!state && setting === 'local') {
    throw new TargetError(
      `RATCHET_TARGET=local, but the local stack is not running (${statePath(dataDir)} not found): start it with \`npm start\``,
    );
  }
  if (state) {
    if (!isAlive(state.pid)) {
      throw new TargetError(
        `the local stack is not running (${statePath(dataDir)} names pid ${state.pid}, which has exited): ` +
          'start it with `npm start`, or set RATCHET_TARGET=aws to use AWS',
      );
    }
    return {
      kind: 'local',
      description: `the local stack at ${state.url} (pid ${state.pid}, from ${statePath(dataDir)})`,
      hint: 'check that `npm start` is still running, or restart it',
      region: state.region,
      dynamoEndpoint: state.dynamoEndpoint,
      sqsEndpoint: env.SQS_ENDPOINT ?? state.sqsEndpoint,
      inboxTable: state.inboxTable,
      suppressionTable: state.suppressionTable,
      reputationTable: state.reputationTable ?? REPUTATION_TABLE.defaultName,
      queueUrl: state.queueUrl,
      deadLetterUrl: state.deadLetterUrl,
      sesDeadLetterQueue: env.SES_DEAD_LETTER_QUEUE || state.sesDeadLetterUrl,
      syncQueueUrl: env.SYNC_QUEUE_URL || state.syncQueueUrl,
      syncDeadLetterUrl: env.SYNC_DEAD_LETTER_QUEUE_URL || state.syncDeadLetterUrl,
      syncProviders: state.syncProviders,
    };
  }
  const why = setting === 'aws' ? 'RATCHET_TARGET=aws' : `no local stack: ${statePath(dataDir)} not found`;
  return {
    kind: 'aws',
    description: `AWS ${region} (${why})`,
    hint:
      'start the local stack with `npm start`, set DYNAMODB_ENDPOINT, or configure AWS credentials ' +
      '(AWS_PROFILE, AWS_REGION) and the names from the stack outputs',
    region,
    sqsEndpoint: env.SQS_ENDPOINT,
    ...named,
    ...syncQueue(env.SYNC_QUEUE_NAME || stackSyncQueueName(env.SUPPRESSION_TABLE)),
  };
}

/**
 * On AWS the sync queue is the stack's `<resourcePrefix>-sync`, and the suppression table its
 * `<resourcePrefix>-suppressions`: the prefix of the table the operator named is the stack's. Guessing
 * the default stack's queue instead would send another stack's changes to it, and count and redrive its
 * dead letters. A table name the stack would not give leaves the queue unknown (SYNC_QUEUE_URL).
 */
function stackSyncQueueName(suppressionTable: string | undefined): string | undefined {
  if (!suppressionTable) return SYNC_QUEUE.defaultName;
  const suffix = resourceNames('').suppressionTable;
  return suppressionTable.endsWith(suffix) && suppressionTable.length > suffix.length
    ? syncResourceNames(suppressionTable.slice(0, -suffix.length)).queue
    : undefined;
}

/**
 * Where `send` posts: the running `npm start`'s URL from `.data/local.json`, else PORT (0 means "pick
 * one", so it names no port), else the default port. The file comes first: a shell that exports PORT
 * for another app must not redirect the demo. A PORT that is not a port is a SettingError (exit 2).
 */
export function localStackUrl(env: Env): { url: string; source: string } {
  const dataDir = resolve(env.RATCHET_DATA_DIR ?? '.data');
  const state = readLocalState(dataDir);
  if (state) {
    if (!isAlive(state.pid)) {
      throw new TargetError(
        `the local stack is not running (${statePath(dataDir)} names pid ${state.pid}, which has exited): start it with \`npm start\``,
      );
    }
    return { url: state.url, source: statePath(dataDir) };
  }
  const port = env.PORT?.trim();
  if (port) {
    const n = Number(port);
    if (!/^\d+$/.test(port) || n > 65_535) {
      throw new SettingError(`PORT must be a port number from 0 to 65535, got ${JSON.stringify(env.PORT)}`);
    }
    if (n !== 0) return { url: `http://localhost:${n}`, source: 'PORT' };
  }
  return {
    url: 'http://localhost:3000',
    source: `the default port (${statePath(dataDir)} does not exist and PORT is not set)`,
  };
}

function readLocalState(dataDir: string) {
  try {
    return readState(dataDir) as (ReturnType<typeof readState> & { sesDeadLetterUrl?: string }) | undefined;
  } catch (error) {
    throw new TargetError(
      `${statePath(dataDir)} is unreadable (${(error as Error).message}): remove it, or restart \`npm start\``,
    );
  }
}

/** Whether a process with this pid exists (EPERM: it does, under another user). */
export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The innermost cause's message: "suppression read failed" alone tells the operator nothing. */
export function rootCause(error: unknown): string {
  let current: unknown = error;
  const seen = new Set<unknown>();
  while (current instanceof Error && current.cause !== undefined && !seen.has(current)) {
    seen.add(current);
    current = current.cause;
  }
  if (current instanceof Error) {
    const code = (current as NodeJS.ErrnoException).code;
    const message = current.message || current.name;
    return code && !message.includes(code) ? `${code} ${message}` : message;
  }
  return String(current);
}

/** One line: what failed, against which target, why, and what to do. */
export function explainFailure(action: string, target: Target, error: unknown): string {
  return `${action} failed against ${target.description}: ${rootCause(error).split('\n')[0]}. To fix: ${target.hint}`;
}
