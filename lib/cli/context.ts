/**
 * What every `ratchet` command shares: the resolved target, SDK clients and adapters built lazily (so
 * `--help` and usage errors never touch the network), and the rule that turns a failure into one line.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createDocumentClient, createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { TransientError } from '../../lambdas/core/errors.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { DEFAULT_INBOX_TTL_DAYS } from '../definitions.js';
import type { Io } from './io.js';
import { explainFailure, resolveTarget, TargetError, type Target } from './target.js';
import { cliSyncFastPath } from './sync-fast-path.js';

export type Env = Record<string, string | undefined>;

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

  suppressions(): DynamoSuppressionStore {
    const onSyncChange = cliSyncFastPath(this.env, this.target, () => this.sqs);
    return new DynamoSuppressionStore(this.doc, this.target.suppressionTable, policyFromSettings(this.env), { onSyncChange });
  }

  inbox(): DynamoInbox {
    return new DynamoInbox(this.doc, this.target.inboxTable, { ttlSeconds: DEFAULT_INBOX_TTL_DAYS * 86_400 });
  }

  actor(option?: string): string {
    return option ?? this.env.USER ?? 'unknown';
  }

  /** A usage problem found after parsing (exit 2), reported like commander's own. */
  usage(message: string): number {
    this.io.err(`error: ${message}`);
    return 2;
  }

  /** Exit 1 with one line. Network and store failures name the target and what to do about it. */
  fail(error: unknown): number {
    if (error instanceof TargetError) this.io.err(`error: ${error.message}`);
    else if (isReachFailure(error) && this.resolved) this.io.err(`error: ${explainFailure(this.action, this.resolved, error)}`);
    else this.io.err(`error: ${this.action}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }

  close(): void {
    this.docClient?.destroy();
    this.sqsClient?.destroy();
  }
}

/** A failure of the target itself (unreachable, no credentials, missing table), not of the request. */
function isReachFailure(error: unknown): boolean {
  if (error instanceof TransientError) return true;
  if (!(error instanceof Error)) return false;
  return '$metadata' in error || 'code' in error || /credential|ECONNREFUSED|ENOTFOUND|socket/i.test(`${error.name} ${error.message}`);
}
