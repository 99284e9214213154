/**
 * The import's `--dry-run`: the suppression store with the write left out. Each change runs the same
 * pure merge the DynamoDB store runs (`importEntry`, `importRecord`, `applyEvent` from the core) on the
 * record the store holds, and keeps the result in memory instead of writing it, so a file that names
 * an address twice counts the second entry as already present, exactly as a real run would. Changes
 * to one address are chained, as the store's version guard serializes them. Memory: one record per
 * address the file touches.
 */
import { type NormalizedEvent, normalizeRecipient } from '../../lambdas/core/event.js';
import {
  type ApplyResult,
  applyEvent,
  type ImportedEntry,
  importEntry,
  importRecord,
  type RatchetPolicy,
  type RecordImportResult,
  type SuppressionRecord,
} from '../../lambdas/core/suppression/index.js';

/** What an import writes through: the DynamoDB store, or this decorator of it. */
export interface ImportStore {
  importEntry(email: string, entry: ImportedEntry): Promise<ApplyResult>;
  apply(event: Omit<NormalizedEvent, 'raw'>): Promise<ApplyResult>;
  /** A whole record from Ratchet's own export, its address already normalized. */
  importRecord(exported: SuppressionRecord): Promise<RecordImportResult>;
}

export class DryRunStore implements ImportStore {
  private readonly records = new Map<string, Promise<SuppressionRecord | undefined>>();

  constructor(
    private readonly read: (email: string) => Promise<SuppressionRecord | undefined>,
    private readonly policy: RatchetPolicy,
  ) {}

  importEntry(email: string, entry: ImportedEntry): Promise<ApplyResult> {
    const address = normalizeRecipient(email);
    return this.change(address, (record) => importEntry(record, address, entry, this.policy));
  }

  apply(event: Omit<NormalizedEvent, 'raw'>): Promise<ApplyResult> {
    return this.change(event.recipient, (record) => applyEvent(record, { ...event, raw: '' }, this.policy));
  }

  importRecord(exported: SuppressionRecord): Promise<RecordImportResult> {
    return this.change(exported.email, (record) => importRecord(record, exported, this.policy));
  }

  private change<R extends ApplyResult>(
    email: string,
    merge: (record: SuppressionRecord | undefined) => R,
  ): Promise<R> {
    const before = this.records.get(email) ?? this.read(email).then(withoutBookkeeping);
    const outcome = before.then(merge);
    // What a real run would have stored; a failed merge leaves the record as it was.
    this.records.set(
      email,
      outcome.then(
        (result) => (result.changed ? result.record : before),
        () => before,
      ),
    );
    return outcome;
  }
}

/** The stored item carries the adapter's `version` and `updatedAt`; the merge takes the record alone. */
function withoutBookkeeping(item: SuppressionRecord | undefined): SuppressionRecord | undefined {
  if (!item) return undefined;
  const {
    version: _version,
    updatedAt: _updatedAt,
    ...record
  } = item as SuppressionRecord & { version?: number; updatedAt?: number };
  return record as SuppressionRecord;
}
