/**
 * The suppression-list formats `ratchet suppressions import` reads, each mapped to evidence kinds.
 * Every format declares the columns its provider documents (docs/import-formats.md, with sources): a
 * file whose header does not match is refused before anything is written, because a SendGrid group
 * export read as a bounce list would suppress people for everything, and a column-agnostic reader
 * cannot tell. A row maps to zero or more entries (a format-1 Ratchet record with two reasons gives
 * two) and what it holds that they cannot carry (`skipped`), to a whole record (Ratchet's own export,
 * format 2: import-ratchet.ts), or to an `invalid` reason that the summary counts.
 */
import type { SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import type { EvidenceKind } from '../../lambdas/core/suppression/record.js';
import { CSV_COLUMNS_V1, EXPORT_CSV_COLUMNS } from './export-format.js';
import { ratchetRow } from './import-ratchet.js';

export interface ParsedEntry {
  email: string;
  kind: EvidenceKind;
  /** The source's date for the entry, as written (seconds, ms, ISO 8601 or RFC 2822); absent when the cell is empty. */
  date?: string | number;
  note?: string;
  /** Topic-scoped unsubscribes (SendGrid groups, Mailgun tags). */
  topic?: string;
}

/** Something a row holds that the import cannot apply: counted and named in the summary, never dropped in silence. */
export interface RowSkip {
  /** What it is, e.g. `topic opt-out`: the summary counts by this and `why`. */
  what: string;
  /** Which one: a topic name, an evidence key, a time. */
  detail: string;
  why: string;
}

/**
 * Entries to add (with what the row holds beyond them, `skipped`), a whole record from Ratchet's own
 * export (import-ratchet.ts), or why the row is invalid.
 */
export type RowResult =
  | ParsedEntry[]
  | { entries: ParsedEntry[]; skipped: RowSkip[] }
  | { record: SuppressionRecord }
  | { invalid: string };

export interface ImportFormat {
  name: string;
  layout: 'csv' | 'jsonl' | 'json';
  /** The documented columns: the CSV header, or the keys of each entry of a JSON list (any order). */
  columns: readonly string[];
  /** The headers of earlier versions of the format, still read (Ratchet's own CSV export before format 2). */
  olderColumns?: readonly (readonly string[])[];
  /** Documented columns a file may leave out. */
  optional?: readonly string[];
  /** Other columns are allowed too (Ratchet's own records carry many fields). */
  open?: boolean;
  /** The column holding each entry's date: required unless `--dates file-mtime`. */
  dateColumn: string;
  /** JSON layouts: the property holding the list, and the other top-level keys the document may have. */
  list?: { key: string; alongside?: readonly string[] };
  map(row: Record<string, unknown>): RowResult;
}

const str = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
const one = (email: unknown, kind: EvidenceKind, date: unknown, note?: string, topic?: string): RowResult => {
  const address = str(email);
  if (address === '') return { invalid: 'no address' };
  const when = typeof date === 'number' ? date : str(date) || undefined;
  return [
    {
      email: address,
      kind,
      ...(when !== undefined ? { date: when } : {}),
      ...(note ? { note } : {}),
      ...(topic ? { topic } : {}),
    },
  ];
};
const sendgrid = (
  name: string,
  kind: EvidenceKind,
  columns: string[],
  note?: (r: Record<string, unknown>) => string,
): ImportFormat => ({
  name,
  layout: 'csv',
  columns,
  dateColumn: 'created',
  map: (r) => one(r.email, kind, r.created, note?.(r)),
});
const statusAndReason = (r: Record<string, unknown>) => [str(r.status), str(r.reason)].filter(Boolean).join(' ');

const SES_KIND: Record<string, EvidenceKind> = { BOUNCE: 'hard_bounce', COMPLAINT: 'complaint' };
const POSTMARK_KIND: Record<string, EvidenceKind> = { HardBounce: 'hard_bounce', SpamComplaint: 'complaint' };
export const IMPORT_FORMATS: readonly ImportFormat[] = [
  {
    name: 'jsonl',
    layout: 'jsonl',
    columns: ['email', 'status'],
    open: true,
    dateColumn: 'suppressedAt',
    optional: ['suppressedAt'],
    map: ratchetRow('jsonl'),
  },
  {
    name: 'csv',
    layout: 'csv',
    columns: EXPORT_CSV_COLUMNS,
    olderColumns: [CSV_COLUMNS_V1],
    dateColumn: 'suppressedAt',
    map: ratchetRow('csv'),
  },
  {
    name: 'ses',
    layout: 'json',
    list: { key: 'SuppressedDestinationSummaries', alongside: ['NextToken'] },
    columns: ['EmailAddress', 'Reason', 'LastUpdateTime'],
    dateColumn: 'LastUpdateTime',
    map: (r) => {
      const kind = SES_KIND[str(r.Reason)];
      return kind
        ? one(r.EmailAddress, kind, r.LastUpdateTime)
        : { invalid: `unknown Reason ${str(r.Reason) || 'missing'}` };
    },
  },
  sendgrid('sendgrid-bounces', 'hard_bounce', ['created', 'email', 'reason', 'status'], statusAndReason),
  // A block is a temporary rejection: it spends the soft-bounce budget rather than suppressing at once.
  sendgrid('sendgrid-blocks', 'soft_bounce', ['created', 'email', 'reason', 'status'], statusAndReason),
  sendgrid('sendgrid-spam-reports', 'complaint', ['created', 'email', 'ip']),
  sendgrid('sendgrid-invalid-emails', 'hard_bounce', ['created', 'email', 'reason'], (r) => str(r.reason)),
  sendgrid('sendgrid-global-unsubscribes', 'unsubscribe', ['created', 'email']),
  {
    name: 'sendgrid-group-unsubscribes',
    layout: 'csv',
    columns: ['email', 'group_id', 'group_name', 'created_at'],
    dateColumn: 'created_at',
    // The canonical topic of a SendGrid suppression group, as its webhooks name it (docs/suppression-table.md, topics).
    map: (r) =>
      one(
        r.email,
        'unsubscribe',
        r.created_at,
        str(r.group_name) || undefined,
        str(r.group_id) ? `sendgrid:group:${str(r.group_id)}` : undefined,
      ),
  },
  {
    name: 'mailgun-bounces',
    layout: 'csv',
    columns: ['address', 'code', 'error', 'created_at'],
    dateColumn: 'created_at',
    map: (r) => one(r.address, 'hard_bounce', r.created_at, [str(r.code), str(r.error)].filter(Boolean).join(' ')),
  },
  {
    name: 'mailgun-complaints',
    layout: 'csv',
    columns: ['address', 'created_at'],
    dateColumn: 'created_at',
    map: (r) => one(r.address, 'complaint', r.created_at),
  },
  {
    name: 'mailgun-unsubscribes',
    layout: 'csv',
    columns: ['address', 'tags', 'created_at'],
    dateColumn: 'created_at',
    // `*` (or no tag) is every message from the domain; any other tag is one topic.
    map: (r) => {
      const tag = str(r.tags);
      return one(
        r.address,
        'unsubscribe',
        r.created_at,
        undefined,
        tag && tag !== '*' ? `mailgun:tag:${tag}` : undefined,
      );
    },
  },
  {
    name: 'postmark',
    layout: 'json',
    list: { key: 'Suppressions' },
    columns: ['EmailAddress', 'SuppressionReason', 'Origin', 'CreatedAt'],
    dateColumn: 'CreatedAt',
    map: (r) => {
      const reason = str(r.SuppressionReason);
      // A ManualSuppression whose Origin is the recipient is Postmark's own unsubscribe link.
      const kind =
        POSTMARK_KIND[reason] ??
        (reason === 'ManualSuppression' ? (str(r.Origin) === 'Recipient' ? 'unsubscribe' : 'manual') : undefined);
      return kind
        ? one(r.EmailAddress, kind, r.CreatedAt, `${reason} (${str(r.Origin)})`)
        : { invalid: `unknown SuppressionReason ${reason || 'missing'}` };
    },
  },
];

export const IMPORT_FORMAT_NAMES = IMPORT_FORMATS.map((f) => f.name);

/** Where an entry without a date of its own is dated: nowhere (it is invalid), or by the file's modification time. */
export type DateSource = 'column' | 'file-mtime';

export interface HeaderMismatch {
  missing: string[];
  unexpected: string[];
}

/** What is wrong with `header` for `format` (its current columns), or undefined when it fits them or an older version's. */
export function headerMismatch(
  format: ImportFormat,
  header: readonly string[],
  dates: DateSource = 'column',
): HeaderMismatch | undefined {
  const present = new Set(header);
  const optional = new Set([...(format.optional ?? []), ...(dates === 'file-mtime' ? [format.dateColumn] : [])]);
  const against = (columns: readonly string[], optionalHere: ReadonlySet<string>): HeaderMismatch | undefined => {
    const missing = columns.filter((c) => !present.has(c) && !optionalHere.has(c));
    const unexpected = format.open ? [] : header.filter((c) => !columns.includes(c));
    return missing.length + unexpected.length === 0 ? undefined : { missing, unexpected };
  };
  // An older version's date column is required as it was (unless --dates file-mtime).
  const olderOptional = new Set(dates === 'file-mtime' ? [format.dateColumn] : []);
  if ((format.olderColumns ?? []).some((columns) => against(columns, olderOptional) === undefined)) return undefined;
  return against(format.columns, optional);
}

/** The formats of this layout whose documented header `header` is (bounces and blocks share one). */
export function formatsMatching(layout: ImportFormat['layout'], header: readonly string[]): string[] {
  return IMPORT_FORMATS.filter((f) => f.layout === layout && !f.open && headerMismatch(f, header) === undefined).map(
    (f) => f.name,
  );
}

/** One line for a refused header: what is missing or unexpected, and which format the file looks like. */
export function describeMismatch(
  file: string,
  format: ImportFormat,
  mismatch: HeaderMismatch,
  lookalikes: readonly string[],
  expected = format.columns.join(','),
): string {
  const parts = [
    mismatch.missing.length > 0 ? `missing: ${mismatch.missing.join(', ')}` : '',
    mismatch.unexpected.length > 0 ? `unexpected: ${mismatch.unexpected.join(', ')}` : '',
  ].filter(Boolean);
  const dateOnly =
    mismatch.unexpected.length === 0 && mismatch.missing.length === 1 && mismatch.missing[0] === format.dateColumn;
  const hint = dateOnly
    ? `; to date every entry by the file's modification time instead, pass --dates file-mtime`
    : lookalikes.length > 0
      ? `; it looks like ${lookalikes.map((n) => `--format ${n}`).join(' or ')}`
      : '; it matches no format in docs/import-formats.md';
  return `${file} is not a ${format.name} file (${parts.join('; ')}; expected ${expected})${hint}. Nothing was imported`;
}

/** Epoch ms from a source date: seconds or ms as numbers or digits, ISO 8601, or RFC 2822. */
export function parseSourceDate(value: string | number): number | undefined {
  const numeric = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
  if (numeric !== undefined)
    return Number.isFinite(numeric) && numeric > 0 ? Math.round(numeric < 1e11 ? numeric * 1000 : numeric) : undefined;
  const ms = Date.parse(String(value));
  return Number.isNaN(ms) ? undefined : ms;
}
