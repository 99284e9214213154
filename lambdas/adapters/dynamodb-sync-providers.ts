/**
 * Per-provider sync facts shared by every worker, one row each in the inbox table under
 * `sync#<provider>` (beside `control#` rows, which this file does not touch): `pausedUntil`, the end
 * of the latest 429 pause, and `lastSuccessAt`, for `ratchet sync status`. Both only move forward
 * (conditional updates), so concurrent workers cannot move them back. The sweeper keeps the provider's
 * backfill checkpoint there too (`backfill`: cursor, counts, done), so a crash resumes the walk, and
 * `ratchet sync reconcile` its latest run (`lastReconcile`), for `sync status` and the console. One more
 * row, `sync#configured`, holds the providers the sweeper last ran with, so a provider that comes back
 * to SYNC_PROVIDERS is walked again (wiring/sync-sweeper.ts).
 */
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { BackfillProgress } from '../core/sync/backfill.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../core/sync/target.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import type { PauseStore } from './sync-gate.js';
import { INBOX_TABLE } from './tables.js';

/** The latest `ratchet sync reconcile` run against this provider: when, what it found, whether it repaired. */
export interface ReconcileRun {
  at: number;
  /** Entries found in either direction (`missingAtProvider` + `missingInRatchet`). */
  drift: number;
  applied: boolean;
}

export interface ProviderSyncFacts {
  pausedUntil?: number;
  lastSuccessAt?: number;
  backfill?: BackfillProgress;
  lastReconcile?: ReconcileRun;
}

/** A worker records a success at most this often per provider: one write, not one per push. */
const SUCCESS_WRITE_INTERVAL_MS = 10_000;

export class DynamoSyncProviders implements PauseStore {
  private readonly lastWritten = new Map<SyncProviderName, number>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async facts(provider: SyncProviderName): Promise<ProviderSyncFacts> {
    const result = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [INBOX_TABLE.partitionKey]: key(provider) },
        ConsistentRead: true,
      }),
    );
    const item = result.Item ?? {};
    return {
      ...(typeof item.pausedUntil === 'number' ? { pausedUntil: item.pausedUntil } : {}),
      ...(typeof item.lastSuccessAt === 'number' ? { lastSuccessAt: item.lastSuccessAt } : {}),
      ...(isProgress(item.backfill) ? { backfill: item.backfill } : {}),
      ...(isReconcileRun(item.lastReconcile) ? { lastReconcile: item.lastReconcile } : {}),
    };
  }

  /** Records a finished reconcile run; an older run never replaces a newer one (two operators at once). */
  async reconciled(provider: SyncProviderName, run: ReconcileRun): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [INBOX_TABLE.partitionKey]: key(provider) },
          UpdateExpression: 'SET #r = :r',
          ConditionExpression: 'attribute_not_exists(#r) OR #r.#at < :at',
          ExpressionAttributeNames: { '#r': 'lastReconcile', '#at': 'at' },
          ExpressionAttributeValues: { ':r': run, ':at': run.at },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }

  async backfill(provider: SyncProviderName): Promise<BackfillProgress | undefined> {
    return (await this.facts(provider)).backfill;
  }

  async saveBackfill(provider: SyncProviderName, progress: BackfillProgress): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [INBOX_TABLE.partitionKey]: key(provider) },
        UpdateExpression: 'SET #b = :b',
        ExpressionAttributeNames: { '#b': 'backfill' },
        ExpressionAttributeValues: { ':b': progress },
      }),
    );
  }

  /** The providers the sweeper last ran with; undefined before any sweeper recorded them. */
  async configuredProviders(): Promise<SyncProviderName[] | undefined> {
    const result = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [INBOX_TABLE.partitionKey]: CONFIGURED },
        ConsistentRead: true,
      }),
    );
    const listed: unknown = result.Item?.providers;
    if (!Array.isArray(listed)) return undefined;
    return SYNC_PROVIDER_NAMES.filter((p) => listed.includes(p));
  }

  async saveConfiguredProviders(providers: readonly SyncProviderName[]): Promise<void> {
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [INBOX_TABLE.partitionKey]: CONFIGURED },
        UpdateExpression: 'SET #p = :p',
        ExpressionAttributeNames: { '#p': 'providers' },
        ExpressionAttributeValues: { ':p': [...providers] },
      }),
    );
  }

  async pausedUntil(provider: SyncProviderName): Promise<number | undefined> {
    return (await this.facts(provider)).pausedUntil;
  }

  pause(provider: SyncProviderName, untilMs: number): Promise<void> {
    return this.forward(provider, 'pausedUntil', untilMs);
  }

  /** Throttled per process; `force` writes now (the last success before a quiet period must not be lost). */
  async succeeded(provider: SyncProviderName, atMs: number, force = false): Promise<void> {
    const last = this.lastWritten.get(provider) ?? -Infinity;
    if (!force && atMs - last < SUCCESS_WRITE_INTERVAL_MS) return;
    this.lastWritten.set(provider, atMs);
    await this.forward(provider, 'lastSuccessAt', atMs);
  }

  private async forward(
    provider: SyncProviderName,
    field: 'pausedUntil' | 'lastSuccessAt',
    value: number,
  ): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [INBOX_TABLE.partitionKey]: key(provider) },
          UpdateExpression: 'SET #f = :v',
          ConditionExpression: 'attribute_not_exists(#f) OR #f < :v',
          ExpressionAttributeNames: { '#f': field },
          ExpressionAttributeValues: { ':v': value },
        }),
      );
    } catch (error) {
      if (!isConditionalCheckFailure(error)) throw error;
    }
  }
}

/** The rows' partition keys all start `sync#`: the IAM grants hold the worker and the sweeper to them (dynamodb:LeadingKeys). */
export const SYNC_ROW_PREFIX = 'sync#';

/** Not a provider's name (those are SYNC_PROVIDER_NAMES), so never a provider's row. */
const CONFIGURED = `${SYNC_ROW_PREFIX}configured`;

function key(provider: SyncProviderName): string {
  return `${SYNC_ROW_PREFIX}${provider}`;
}

function isReconcileRun(value: unknown): value is ReconcileRun {
  const v = value as Partial<ReconcileRun> | undefined;
  return typeof v?.at === 'number' && typeof v.drift === 'number' && typeof v.applied === 'boolean';
}

function isProgress(value: unknown): value is BackfillProgress {
  const v = value as Partial<BackfillProgress> | undefined;
  return typeof v === 'object' && v !== null && typeof v.done === 'boolean' && typeof v.scanned === 'number';
}
