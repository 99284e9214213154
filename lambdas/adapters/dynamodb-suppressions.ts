/**
 * The suppression table behind a guarded write: consistent read → pure ratchet → conditional put on
 * the `version` we read, retried on conflict. Never an unguarded read-then-write: two consumers
 * applying events for the same address concurrently must end in the same record as applying them one
 * after the other, and the version guard is what makes the loser re-read and re-apply.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, PutCommand, ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SUPPRESSION_TABLE } from './tables.js';
import { normalizeRecipient, type NormalizedEvent } from '../core/event.js';
import { TransientError } from '../core/errors.js';
import type { SuppressionStore } from '../core/pipeline/ports.js';
import { skipWithoutRecord } from '../core/pipeline/write-policy.js';
import {
  applyEvent,
  changeTopicManually,
  DEFAULT_RATCHET_POLICY,
  importEntry,
  type ImportedEntry,
  type ManualAction,
  reactivate,
  suppressManually,
  type ApplyResult,
  type RatchetPolicy,
  type SuppressionRecord,
} from '../core/suppression/index.js';
import { isConditionalCheckFailure } from './aws-clients.js';

/** Bookkeeping the adapter adds to every item; not part of the pure record. */
interface StoredFields {
  version: number;
  updatedAt: number;
}

export class DynamoSuppressionStore implements SuppressionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
    private readonly options: { maxAttempts?: number; now?: () => number } = {},
  ) {}

  apply(event: Omit<NormalizedEvent, 'raw'>): Promise<ApplyResult> {
    // No record and a plain delivery: nothing to write (see write-policy.ts for the one corner it changes).
    return this.update(event.recipient, (record) => skipWithoutRecord(record, event) ?? applyEvent(record, { ...event, raw: '' }, this.policy));
  }

  reactivate(email: string, action: ManualAction): Promise<ApplyResult> {
    return this.update(email, (record) => {
      if (!record) throw new Error(`no suppression record for this address`);
      return reactivate(record, action, this.policy);
    });
  }

  suppress(email: string, action: ManualAction): Promise<ApplyResult> {
    return this.update(email, (record) => suppressManually(record, email, action, this.policy));
  }

  /**
   * Manual topic opt-out (`suppressions add <email> --topic <t>`): that topic only, audited with the
   * topic; status, reasons and transactionalStatus are untouched. TOPIC_ALIASES (the policy) applies.
   */
  unsubscribeTopic(email: string, topic: string, action: ManualAction): Promise<ApplyResult> {
    const address = normalizeRecipient(email);
    return this.update(address, (record) => changeTopicManually(record, address, topic, 'unsubscribe', action, this.policy));
  }

  /** Manual topic restore (`suppressions reactivate <email> --topic <t>`): an opt-in dated `at`, audited. */
  resubscribeTopic(email: string, topic: string, action: ManualAction): Promise<ApplyResult> {
    const address = normalizeRecipient(email);
    return this.update(address, (record) => changeTopicManually(record, address, topic, 'subscribe', action, this.policy));
  }

  /** An entry from another system's suppression list (`ratchet suppressions import`): only ever adds evidence. */
  importEntry(email: string, entry: ImportedEntry): Promise<ApplyResult> {
    return this.update(email, (record) => importEntry(record, email, entry, this.policy));
  }

  async get(email: string): Promise<(SuppressionRecord & Partial<StoredFields>) | undefined> {
    return (await this.read(email)).item;
  }

  /**
   * Every record, page by page, for the operator CLI's list and export. `segments` > 1 scans that many
   * parallel segments; each segment waits for `onPage` before reading on, so a slow writer throttles
   * the scan instead of buffering the table in memory. Pages from different segments interleave.
   */
  async scan(
    options: { status?: SuppressionRecord['status']; segments?: number },
    onPage: (records: Array<SuppressionRecord & Partial<StoredFields>>) => Promise<void> | void,
  ): Promise<void> {
    const segments = Math.max(1, Math.floor(options.segments ?? 1));
    const filter = options.status
      ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':status': options.status } }
      : {};
    const scanSegment = async (segment: number) => {
      let startKey: Record<string, unknown> | undefined;
      do {
        let page;
        try {
          page = await this.client.send(
            new ScanCommand({
              TableName: this.tableName,
              ExclusiveStartKey: startKey,
              ...(segments > 1 ? { Segment: segment, TotalSegments: segments } : {}),
              ...filter,
            }),
          );
        } catch (cause) {
          throw new TransientError('suppression scan failed', { cause });
        }
        const items = (page.Items ?? []) as Array<SuppressionRecord & Partial<StoredFields>>;
        if (items.length > 0) await onPage(items);
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    };
    await Promise.all(Array.from({ length: segments }, (_, segment) => scanSegment(segment)));
  }

  private async update(
    email: string,
    change: (record: SuppressionRecord | undefined) => ApplyResult,
  ): Promise<ApplyResult> {
    const maxAttempts = this.options.maxAttempts ?? 40;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const { record, version } = await this.read(email);
      const result = change(record);
      if (!result.changed) return result;
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...result.record, version: version + 1, updatedAt: (this.options.now ?? Date.now)() },
            ConditionExpression: version === 0 ? 'attribute_not_exists(#email)' : '#version = :version',
            ExpressionAttributeNames: version === 0 ? { '#email': SUPPRESSION_TABLE.partitionKey } : { '#version': 'version' },
            ...(version === 0 ? {} : { ExpressionAttributeValues: { ':version': version } }),
          }),
        );
        return result;
      } catch (error) {
        if (!isConditionalCheckFailure(error)) throw new TransientError('suppression write failed', { cause: error });
      }
      // Someone else wrote first: back off with jitter, re-read, re-apply.
      await sleep(Math.random() * Math.min(100, 2 ** attempt));
    }
    throw new TransientError('suppression write kept conflicting; the message will be retried');
  }

  private async read(email: string): Promise<{ record?: SuppressionRecord; version: number; item?: SuppressionRecord & StoredFields }> {
    let item: (SuppressionRecord & StoredFields) | undefined;
    try {
      const result = await this.client.send(
        new GetCommand({ TableName: this.tableName, Key: { [SUPPRESSION_TABLE.partitionKey]: email }, ConsistentRead: true }),
      );
      item = result.Item as (SuppressionRecord & StoredFields) | undefined;
    } catch (cause) {
      throw new TransientError('suppression read failed', { cause });
    }
    if (!item) return { version: 0 };
    const { version, updatedAt: _updatedAt, ...record } = item;
    return { record: record as SuppressionRecord, version: version ?? 0, item };
  }
}
