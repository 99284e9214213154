/**
 * What every `ratchet` command shares: the resolved target, SDK clients and adapters built lazily (so
 * `--help` and usage errors never touch the network), and the rule that turns a failure into one line.
 */
import { userInfo } from 'node:os';
import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { readNumber } from '../../lambdas/adapters/environment.js';
import { TransientError } from '../../lambdas/core/errors.js';
import { normalizeRecipient } from '../../lambdas/core/event.js';
import { policyFromSettings, type RatchetPolicy } from '../../lambdas/core/suppression/index.js';
import { SyncRateLimitedError, SyncRefusedError, SyncTransientError } from '../../lambdas/core/sync/target.js';
import { DEFAULT_INBOX_TTL_DAYS, QUEUE } from '../definitions.js';
import type { Io } from './io.js';
import { cliSyncFastPath } from './sync-fast-path.js';
import { explainFailure, resolveTarget, SettingError, type Target, TargetError } from './target.js';

export type Env = Record<string, string | undefined>;

/**
 * Bad input the operator can fix by changing the command (a malformed address, a file in another
 * format): exit 2 with this message, like a usage error, and nothing is written.
 */
export class InputError extends Error {}

export class Context {
  /** The command being run, for error messages ("suppressions list failed against ..."). */
  action = 'ratchet';
  private resolved?: Target;
  private docClient?: DynamoDBDocumentClient;
  private sqsClient?: SQSClient;

  constructor(
    readonly env: Env,
    readonly io: Io,
    readonly now: () => number = Date.now,
  ) {}

  get target(): Target {
    this.resolved ??= resolveTarget(this.env);
    return this.resolved;
  }

  get doc(): DynamoDBDocumentClient {
    this.docClient ??= createDocumentClient({ region: this.target.region, dynamoEndpoint: this.target.dynamoEndpoint });
    return this.docClient;
  }

  get sqs(): SQSClient {
    this.sqsClient ??= createSqsClient({ region: this.target.region, sqsEndpoint: this.target.sqsEndpoint });
    return this.sqsClient;
  }

  /**
   * QUEUE_NAME (with SQS_ENDPOINT, as `npm start` reads it) to the queue's and its DLQ's URLs, by name
   * (GetQueueUrl: every emulator spells its URLs its own way). Runs before a command's action; a
   * lookup that fails leaves the URL unset, and the command that needs it says which variable to set.
   */
  async resolveQueues(): Promise<void> {
    let target: Target;
    try {
      target = this.target;
    } catch {
      return; // The command reports an unusable target itself.
    }
    const name = target.queueName;
    if (!name) return;
    const lookup = async (queue: string) => {
      try {
        return (await this.sqs.send(new GetQueueUrlCommand({ QueueName: queue }))).QueueUrl;
      } catch {
        return undefined;
      }
    };
    target.queueUrl ??= await lookup(name);
    target.deadLetterUrl ??= await lookup(`${name}${QUEUE.deadLetterSuffix}`);
  }

  suppressions(): DynamoSuppressionStore {
    const onSyncChange = cliSyncFastPath(
      this.env,
      this.target,
      () => this.sqs,
      (line) => this.io.err(line),
    );
    return new DynamoSuppressionStore(this.doc, this.target.suppressionTable, this.policy(), { onSyncChange });
  }

  /** The suppression policy the stack applies (SOFT_BOUNCE_*, TOPIC_ALIASES); a value it refuses is a SettingError. */
  policy(): RatchetPolicy {
    try {
      return policyFromSettings(this.env);
    } catch (error) {
      throw new SettingError((error as Error).message);
    }
  }

  inbox(): DynamoInbox {
    // The lifetime the stack writes rows with (INBOX_TTL_DAYS, as for `npm start`): `inbox list` derives receipt times from it.
    const days = this.env.INBOX_TTL_DAYS ? readNumber(this.env, 'INBOX_TTL_DAYS') : DEFAULT_INBOX_TTL_DAYS;
    return new DynamoInbox(this.doc, this.target.inboxTable, { ttlSeconds: days * 86_400 });
  }

  /** Who a manual action is audited as: --actor, else $USER, else the OS account (a cron job or container has no $USER). */
  actor(option?: string): string {
    return option || this.env.USER || osUser() || 'unknown';
  }

  /** The normalized address, or exit 2 naming what was given: a malformed address is the caller's to fix. */
  address(email: string): string {
    try {
      return normalizeRecipient(email);
    } catch {
      throw new InputError(`${JSON.stringify(email)} is not an email address`);
    }
  }

  /** A usage problem found after parsing (exit 2), reported like commander's own. */
  usage(message: string): number {
    this.io.err(`error: ${message}`);
    return 2;
  }

  /** Exit 1 with one line. Network and store failures name the target and what to do about it. */
  fail(error: unknown): number {
    if (error instanceof InputError || error instanceof SettingError) return this.usage(error.message);
    if (error instanceof TargetError) this.io.err(`error: ${error.message}`);
    else if (isReachFailure(error) && this.resolved)
      this.io.err(`error: ${explainFailure(this.action, this.resolved, error)}`);
    else this.io.err(`error: ${this.action}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  close(): void {
    this.docClient?.destroy();
    this.sqsClient?.destroy();
  }
}

function osUser(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    // No passwd entry for this uid (some containers).
    return undefined;
  }
}

/** A failure of the target itself (unreachable, no credentials, missing table), not of the request. */
function isReachFailure(error: unknown): boolean {
  // A provider's own answer (`sync reconcile`): its message names the provider and the route, and the
  // target's hint (start DYNAMODB_ENDPOINT, ...) would send the operator to the wrong service.
  if (error instanceof SyncTransientError || error instanceof SyncRefusedError || error instanceof SyncRateLimitedError)
    return false;
  if (error instanceof TransientError) return true;
  if (!(error instanceof Error)) return false;
  return (
    '$metadata' in error ||
    'code' in error ||
    /credential|ECONNREFUSED|ENOTFOUND|socket/i.test(`${error.name} ${error.message}`)
  );
}
