/**
 * The suppression table behind a guarded write: consistent read → pure ratchet → conditional put on
 * the `version` we read, retried on conflict. Never an unguarded read-then-write: two consumers
 * applying events for the same address concurrently must end in the same record as applying them one
 * after the other, and the version guard is what makes the loser re-read and re-apply.
 *
 * A write that most likely creates its record skips the read: a create-only put first (`update`'s
 * `createFirst`, and `importEntry`). Where a record exists after all, DynamoDB hands it back with the
 * failed condition (ReturnValuesOnConditionCheckFailure), and that stands in for the read.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import { type NormalizedEvent, normalizeRecipient } from '../core/event.js';
import type { SuppressionStore, WriteSkip } from '../core/pipeline/ports.js';
import {
  type ApplyResult,
  applyEvent,
  changeTopicManually,
  DEFAULT_RATCHET_POLICY,
  type Effect,
  type ImportedEntry,
  importEntry,
  importRecord,
  type ManualAction,
  type RatchetPolicy,
  type RecordImportResult,
  reactivate,
  type SuppressionRecord,
  suppressManually,
} from '../core/suppression/index.js';
import {
  CURRENT_SUPPRESSION_SCHEMA,
  isNewerSuppressionSchema,
  SUPPRESSION_SCHEMA_ATTRIBUTE,
} from '../core/suppression/schema.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { scanPages } from './dynamodb-scan.js';
import {
  parseStored,
  readSuppressionItem,
  type StoredFields,
  type StoredRead,
  storedWith,
  upToDate,
} from './dynamodb-suppression-item.js';
import { type StoredSyncFields, syncFieldsForWrite } from './suppression-sync-fields.js';
import { SUPPRESSION_TABLE } from './tables.js';

/**
 * The effects worth a create-only first try. Sending code checks the list before it mails, so a hard
 * bounce, complaint, unsubscribe or manual suppression almost always concerns an address with no record
 * yet (a campaign's bounce storm is thousands of them), and a read first would find nothing. A soft
 * bounce or a delivery often finds the record of an earlier one: those read first.
 */
const LIKELY_NEW: ReadonlySet<Effect> = new Set<Effect>(['suppressed', 'topic_unsubscribed']);

/** What a put did: written, or not (its condition failed), with the stored item when DynamoDB returned it. */
type PutOutcome = { written: true } | { written: false; stored?: StoredRead };

export class DynamoSuppressionStore implements SuppressionStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly policy: RatchetPolicy = DEFAULT_RATCHET_POLICY,
    private readonly options: {
      maxAttempts?: number;
      now?: () => number;
      /**
       * Called after a write that put a sync change in the outbox (the fast path to the sync queue).
       * Never awaited for the write's sake: it runs after the put, and a failure is the sweeper's to cover.
       */
      onSyncChange?: (email: string) => Promise<void>;
    } = {},
  ) {}

  /** `skip` (the consumer's write policy) is asked first, on the record this attempt read. */
  apply(event: Omit<NormalizedEvent, 'raw'>, skip?: WriteSkip): Promise<ApplyResult> {
    return this.update(
      event.recipient,
      (record) => skip?.(record, event) ?? applyEvent(record, { ...event, raw: '' }, this.policy),
      { createFirst: true },
    );
  }

  reactivate(email: string, action: ManualAction): Promise<ApplyResult> {
    return this.update(email, (record) => {
      if (!record) throw new Error(`no suppression record for this address`);
      return reactivate(record, action, this.policy);
    });
  }

  suppress(email: string, action: ManualAction): Promise<ApplyResult> {
    return this.update(email, (record) => suppressManually(record, email, action, this.policy), {
      createFirst: true,
    });
  }

  /**
   * Manual topic opt-out (`suppressions add <email> --topic <t>`): that topic only, audited with the
   * topic; status, reasons and transactionalStatus are untouched. TOPIC_ALIASES (the policy) applies.
   */
  unsubscribeTopic(email: string, topic: string, action: ManualAction): Promise<ApplyResult> {
    const address = normalizeRecipient(email);
    return this.update(
      address,
      (record) => changeTopicManually(record, address, topic, 'unsubscribe', action, this.policy),
      { createFirst: true },
    );
  }

  /** Manual topic restore (`suppressions reactivate <email> --topic <t>`): an opt-in dated `at`, audited. */
  resubscribeTopic(email: string, topic: string, action: ManualAction): Promise<ApplyResult> {
    const address = normalizeRecipient(email);
    return this.update(address, (record) =>
      changeTopicManually(record, address, topic, 'subscribe', action, this.policy),
    );
  }

  /**
   * An entry from another system's suppression list (`ratchet suppressions import`): only ever adds
   * evidence. Most imported addresses have no record yet, so the first try writes the new record with
   * one PutItem that lands only where none exists, without reading first (an import is write-bound).
   * When one exists (re-run, or a consumer wrote it meanwhile) nothing was written, and the entry takes
   * the guarded path from the item the failed put returned: merge with the same pure `importEntry`,
   * put on the version read.
   */
  async importEntry(email: string, entry: ImportedEntry): Promise<ApplyResult> {
    const address = normalizeRecipient(email);
    const change = (record: SuppressionRecord | undefined) => importEntry(record, address, entry, this.policy);
    const fresh = change(undefined);
    if (!fresh.changed) return this.update(address, change);
    const first = await this.put(fresh.record, 0, undefined, {});
    return first.written ? fresh : this.update(address, change, { known: first.stored });
  }

  /**
   * A whole exported record (`ratchet suppressions import --format jsonl|csv`), merged by its keys
   * (core/suppression/import-record.ts): never lifts a suppression, and a second import writes nothing.
   * Like `importEntry`, a new address is one create-only PutItem without a read.
   */
  async importRecord(exported: SuppressionRecord): Promise<RecordImportResult> {
    const fresh = importRecord(undefined, exported, this.policy);
    const first = await this.put(fresh.record, 0, undefined, {});
    if (first.written) return fresh;
    return this.update(exported.email, (record) => importRecord(record, exported, this.policy), {
      known: first.stored,
    });
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
      ? {
          FilterExpression: '#status = :status',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':status': options.status },
        }
      : {};
    const scanSegment = async (segment: number) => {
      const pages = scanPages(
        this.client,
        {
          TableName: this.tableName,
          ...(segments > 1 ? { Segment: segment, TotalSegments: segments } : {}),
          ...filter,
        },
        'suppression',
      );
      for await (const items of pages) if (items.length > 0) await onPage(items.map(upToDate));
    };
    await Promise.all(Array.from({ length: segments }, (_, segment) => scanSegment(segment)));
  }

  /**
   * Read → `change` → put on the version read, until a put lands. `createFirst`: when `change` on no
   * record has a LIKELY_NEW effect, put that first, create-only and without a read; if a record exists
   * after all, the loop starts from the item the failed put returned (or reads, where the endpoint
   * returns none: dynalite). `known`: a read already in hand for the first round.
   */
  private async update<R extends ApplyResult>(
    email: string,
    change: (record: SuppressionRecord | undefined) => R,
    options: { createFirst?: boolean; known?: StoredRead } = {},
  ): Promise<R> {
    const maxAttempts = this.options.maxAttempts ?? 40;
    let known = options.known;
    if (options.createFirst) {
      const fresh = change(undefined);
      if (fresh.changed && LIKELY_NEW.has(fresh.effect)) {
        const first = await this.put(fresh.record, 0, undefined, {});
        if (first.written) return fresh;
        known = first.stored;
      }
    }
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      const { record, version, item, sync = {} } = known ?? (await this.read(email));
      known = undefined;
      if (item && isNewerSuppressionSchema(item)) {
        // Newer code wrote it (a deploy rolling out): rewriting it in today's shape would drop what that code added.
        throw new TransientError(
          `suppression item is schema ${String(item.schemaVersion)}, newer than this code's ${CURRENT_SUPPRESSION_SCHEMA}; retried`,
        );
      }
      const result = change(record);
      if (!result.changed) return result;
      const outcome = await this.put(result.record, version, record, sync);
      if (outcome.written) return result;
      known = outcome.stored;
      // Someone else wrote first: back off with jitter, re-read, re-apply.
      await sleep(Math.random() * Math.min(100, 2 ** attempt));
    }
    throw new TransientError('suppression write kept conflicting; the message will be retried');
  }

  /**
   * Writes `record` only if the stored version is still `readVersion` (0: no record at all). Not
   * written when that condition failed (someone else wrote first); the stored item then comes back with
   * the failure at no extra read (ReturnValuesOnConditionCheckFailure ALL_OLD), where the endpoint
   * supports it.
   */
  private async put(
    record: SuppressionRecord,
    readVersion: number,
    before: SuppressionRecord | undefined,
    stored: StoredSyncFields,
  ): Promise<PutOutcome> {
    const first = readVersion === 0;
    const now = (this.options.now ?? Date.now)();
    // The outbox rides in the same conditional put: a sync change is recorded exactly when the record is.
    const { fields, bumped } = syncFieldsForWrite(stored, before, record, now);
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...record,
            ...fields,
            [SUPPRESSION_SCHEMA_ATTRIBUTE]: CURRENT_SUPPRESSION_SCHEMA,
            version: readVersion + 1,
            updatedAt: now,
          },
          ConditionExpression: first ? 'attribute_not_exists(#email)' : '#version = :version',
          ExpressionAttributeNames: first ? { '#email': SUPPRESSION_TABLE.partitionKey } : { '#version': 'version' },
          ...(first ? {} : { ExpressionAttributeValues: { ':version': readVersion } }),
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (isConditionalCheckFailure(error)) return { written: false, ...storedWith(error) };
      throw new TransientError('suppression write failed', { cause: error });
    }
    if (bumped && this.options.onSyncChange) await this.options.onSyncChange(record.email).catch(() => undefined);
    return { written: true };
  }

  private async read(email: string): Promise<StoredRead> {
    return parseStored(await readSuppressionItem(this.client, this.tableName, email));
  }
}
