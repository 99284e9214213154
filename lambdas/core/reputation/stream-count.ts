/**
 * Counting first admissions from the inbox table's stream, exactly once (docs/reputation.md, "Each
 * event counts once"). Pure: the stream consumer's handler feeds it decoded records; the adapter reads
 * and writes the cells.
 *
 * A cell is one provider, sender and hour as seen by ONE stream shard: its counts and `hw`, the highest
 * sequence number of that shard it has counted. Records of a shard reach the consumer in order, and a
 * retried, bisected or overlapping batch only ever re-delivers records the shard already sent, so
 * counting a cell's records with a sequence number above its `hw`, and moving `hw` in the same
 * conditional write, counts each record once whatever the batch's shape.
 */
import type { NormalizedEvent } from '../event.js';
import type { Log } from '../pipeline/ports.js';
import { type OutcomeCounts, type SenderTally, tally, ZERO_COUNTS } from './counts.js';

/** What counting needs of an event (what an inbox row stores of it). */
export type CountedEvent = Pick<NormalizedEvent, 'provider' | 'kind' | 'sender' | 'detail'>;

/** One stream record of a new inbox row: its sequence number in its shard, when it was written, its events. */
export interface AdmittedRecord {
  /** The shard's sequence number, decimal digits (DynamoDB Streams: 21 to 40 of them). */
  sequence: string;
  /** When DynamoDB wrote the row (the record's ApproximateCreationDateTime), epoch ms. */
  atMs: number;
  events: readonly CountedEvent[];
}

/** One record's contribution to a cell. */
export interface CellEntry {
  /** Padded to SEQUENCE_DIGITS, so strings order as numbers. */
  sequence: string;
  counts: OutcomeCounts;
}

/** One cell's records in a batch, oldest first. */
export interface CellBatch {
  provider: string;
  sender: string;
  hourMs: number;
  entries: CellEntry[];
}

/** DynamoDB Streams sequence numbers are at most 40 digits (API_streams_StreamRecord). */
export const SEQUENCE_DIGITS = 40;

export function padSequence(sequence: string): string {
  if (!/^\d{1,40}$/.test(sequence)) throw new TypeError(`not a stream sequence number: ${sequence}`);
  return sequence.padStart(SEQUENCE_DIGITS, '0');
}

/** The batch's records grouped per cell (provider, sender, hour), each cell's entries in sequence order. */
export function cellBatches(records: readonly AdmittedRecord[]): CellBatch[] {
  const cells = new Map<string, CellBatch>();
  for (const record of records) {
    const sequence = padSequence(record.sequence);
    for (const t of tally(record.events as NormalizedEvent[], record.atMs)) {
      const key = `${t.provider}\u0000${t.sender}\u0000${t.hourMs}`;
      let cell = cells.get(key);
      if (!cell) {
        cell = { provider: t.provider, sender: t.sender, hourMs: t.hourMs, entries: [] };
        cells.set(key, cell);
      }
      cell.entries.push({ sequence, counts: countsOf(t) });
    }
  }
  for (const cell of cells.values()) cell.entries.sort((a, b) => (a.sequence < b.sequence ? -1 : 1));
  return [...cells.values()];
}

/** What a cell still has to count above `hw` (undefined: every entry already counted), and its new `hw`. */
export function countAbove(
  cell: CellBatch,
  hw: string | undefined,
): { counts: OutcomeCounts; records: number; first: string; last: string } | undefined {
  const fresh = cell.entries.filter((e) => hw === undefined || e.sequence > hw);
  if (fresh.length === 0) return undefined;
  const counts = { ...ZERO_COUNTS };
  for (const e of fresh) for (const f of FIELDS) counts[f] += e.counts[f];
  return { counts, records: fresh.length, first: fresh[0]!.sequence, last: fresh[fresh.length - 1]!.sequence };
}

const FIELDS = ['delivered', 'hardBounced', 'softBounced', 'complained'] as const;

function countsOf(t: SenderTally): OutcomeCounts {
  return { delivered: t.delivered, hardBounced: t.hardBounced, softBounced: t.softBounced, complained: t.complained };
}

/** The cells' writes: each counts what is above its `hw` and moves it, in one conditional write. */
export interface ReputationCells {
  /** Counts `cells` of stream shard `shard`; throws TransientError when a write failed (the batch is retried). */
  count(shard: string, cells: readonly CellBatch[]): Promise<{ counted: number; skipped: number }>;
}

/** What the stream consumer's handler is given: a decoder of its event's records, the cells, a log. */
export interface ReputationCounterDeps<R> {
  /** The record as a first admission, or undefined (another item, a deletion). */
  decode(record: R): AdmittedRecord | undefined;
  cells: ReputationCells;
  log: Log;
}
