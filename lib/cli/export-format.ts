/**
 * Ratchet's own export, format 2 (docs/import-formats.md, "Ratchet's own export"): what
 * `suppressions export` writes and `suppressions import --format jsonl|csv` reads back whole. Every
 * line or row carries `exportFormat` and the record's `schemaVersion`, and everything the record's
 * state depends on: the derived fields for people, and the facts they are derived from (evidence and
 * discounted evidence under their keys, soft bounces, topics, the audit list, the history times).
 *
 * JSON lines are the stored item with epoch ms. CSV is one row per record: the eight columns of format
 * 1 first, so a reader of those keeps working, then the rest, maps as JSON in their cell; every time,
 * in a column or inside a cell, is ISO 8601 with milliseconds, so it reads back to the same ms.
 */
import type { SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import { CURRENT_SUPPRESSION_SCHEMA } from '../../lambdas/core/suppression/schema.js';
import { csvField } from './csv.js';

export const EXPORT_FORMAT = 2;
export const EXPORT_FORMAT_FIELD = 'exportFormat';

/** Format 1's CSV columns (an export without `exportFormat`): still imported, as reasons only. */
export const CSV_COLUMNS_V1 = [
  'email',
  'status',
  'reason',
  'reasons',
  'suppressedAt',
  'firstEventAt',
  'lastEventAt',
  'reactivatedAt',
] as const;

const TIME_COLUMNS = [
  'suppressedAt',
  'firstEventAt',
  'lastEventAt',
  'reactivatedAt',
  'lastDeliveredAt',
  'softBounceLimitAt',
] as const;
const JSON_COLUMNS = ['evidence', 'discounted', 'softBounces', 'topics', 'audit'] as const;
/** Times inside the JSON cells: an entry's `occurredAt`, a topic's `changedAt`, an audit entry's `at`. */
const CELL_TIMES = new Set(['occurredAt', 'changedAt', 'at']);

/** The CSV export's columns, in order. */
export const EXPORT_CSV_COLUMNS = [
  ...CSV_COLUMNS_V1,
  'transactionalStatus',
  'lastDeliveredAt',
  'softBounceLimitAt',
  ...JSON_COLUMNS,
  'schemaVersion',
  EXPORT_FORMAT_FIELD,
] as const;

type Exported = SuppressionRecord & { schemaVersion?: number };

/** One JSON line: the item as stored (epoch ms), `exportFormat` first. */
export function exportJsonLine(record: Exported): string {
  return JSON.stringify({ [EXPORT_FORMAT_FIELD]: EXPORT_FORMAT, ...record });
}

/** One CSV row (no line break at the end; a quoted cell may hold one). */
export function exportCsvRow(record: Exported): string {
  const r = record as unknown as Record<string, unknown>;
  const cell = (column: (typeof EXPORT_CSV_COLUMNS)[number]): unknown => {
    const value = r[column];
    if ((TIME_COLUMNS as readonly string[]).includes(column)) return isoTime(value);
    if ((JSON_COLUMNS as readonly string[]).includes(column))
      return value === undefined ? undefined : JSON.stringify(withIsoCellTimes(value));
    if (column === 'schemaVersion') return value ?? CURRENT_SUPPRESSION_SCHEMA;
    if (column === EXPORT_FORMAT_FIELD) return EXPORT_FORMAT;
    return value;
  };
  return EXPORT_CSV_COLUMNS.map((column) => csvField(cell(column))).join(',');
}

/** A whole CSV export of `records`: the header, then one row per record. */
export function exportCsv(records: Iterable<Exported>): string[] {
  const rows = [EXPORT_CSV_COLUMNS.join(',')];
  for (const record of records) rows.push(exportCsvRow(record));
  return rows;
}

/**
 * A format-2 CSV row back to the record's fields, times as epoch ms: what `readExportedRecord` (core)
 * then checks. Throws a TypeError naming the column that cannot be read.
 */
export function recordFromCsvRow(row: Record<string, string>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const column of EXPORT_CSV_COLUMNS) {
    const text = row[column] ?? '';
    if (column === EXPORT_FORMAT_FIELD || text === '') continue;
    if (column === 'reasons') item[column] = text.split(';');
    else if ((TIME_COLUMNS as readonly string[]).includes(column)) item[column] = msTime(text, column);
    else if ((JSON_COLUMNS as readonly string[]).includes(column)) item[column] = withMsCellTimes(json(text, column));
    else if (column === 'schemaVersion') {
      if (!/^\d+$/.test(text)) throw new TypeError(`schemaVersion ${text} is not a version number`);
      item[column] = Number(text);
    } else item[column] = text;
  }
  return item;
}

function isoTime(value: unknown): unknown {
  if (typeof value !== 'number') return value;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

function msTime(text: string, where: string): number {
  // A number is read as it is (an export written by hand); anything else must be a date.
  const ms = /^-?\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(ms)) throw new TypeError(`${where} ${text} is not a time`);
  return ms;
}

function withIsoCellTimes(value: unknown, key = ''): unknown {
  // By key and type: a topic may be named `at`, and its value is then a topic state to walk into.
  if (CELL_TIMES.has(key) && typeof value === 'number') return isoTime(value);
  if (Array.isArray(value)) return value.map((item) => withIsoCellTimes(item));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withIsoCellTimes(v, k)]));
  return value;
}

function withMsCellTimes(value: unknown, key = ''): unknown {
  if (CELL_TIMES.has(key) && typeof value === 'string') return msTime(value, key);
  if (Array.isArray(value)) return value.map((item) => withMsCellTimes(item));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withMsCellTimes(v, k)]));
  return value;
}

function json(text: string, column: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new TypeError(`${column} is not JSON`);
  }
}
