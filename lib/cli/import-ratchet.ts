/**
 * Ratchet's own exports read back (`suppressions import --format jsonl|csv`). A line or row with
 * `exportFormat` 2 is a whole record, merged by its keys (core/suppression/import-record.ts). One
 * without it (format 1, written before the field existed) is imported as before: one entry per
 * reason, dated by `suppressedAt`; what such a line carries beyond its reasons (topics, a reactivation,
 * soft bounces, discounted evidence) is named as skipped, never dropped in silence.
 */
import { isRecord } from '../../lambdas/core/json.js';
import { readExportedRecord } from '../../lambdas/core/suppression/index.js';
import type { EvidenceKind } from '../../lambdas/core/suppression/record.js';
import { EXPORT_FORMAT, EXPORT_FORMAT_FIELD, recordFromCsvRow } from './export-format.js';
import type { ParsedEntry, RowResult, RowSkip } from './import-formats.js';

/** Why a format-1 line's extras are skipped: the same words for each of them. */
export const FORMAT_1_SKIP = 'an export without exportFormat brings back reasons only; export again to carry it';
/** Why a format-2 record's reactivation is not carried (core/suppression/import-record.ts). */
export const LIFT_SKIP = 'it would lift a suppression this table holds; an import never lifts one';

const str = (value: unknown): string =>
  typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';

/** A format-1 record: one entry per reason in effect, dated by when it was suppressed. */
const REASON_KIND: Record<string, EvidenceKind> = {
  complaint: 'complaint',
  hard_bounce: 'hard_bounce',
  unsubscribe: 'unsubscribe',
  manual: 'manual',
  // A crossed soft-bounce budget cannot be rebuilt from one entry; it arrives as a manual suppression.
  soft_bounce_limit: 'manual',
};

/** The row mapper of the `jsonl` or `csv` format. */
export function ratchetRow(layout: 'jsonl' | 'csv'): (row: Record<string, unknown>) => RowResult {
  return (row) => {
    const version = str(row[EXPORT_FORMAT_FIELD]);
    if (version === '' || version === '1') return formatOne(row);
    if (version !== String(EXPORT_FORMAT))
      return { invalid: `${EXPORT_FORMAT_FIELD} ${version}: this version of Ratchet reads 1 and ${EXPORT_FORMAT}` };
    try {
      const item = layout === 'csv' ? recordFromCsvRow(row as Record<string, string>) : row;
      return { record: readExportedRecord(item) };
    } catch (error) {
      if (error instanceof TypeError) return { invalid: error.message.replace(/^stored suppression /, '') };
      throw error;
    }
  };
}

function formatOne(r: Record<string, unknown>): RowResult {
  const status = str(r.status);
  const skipped = formatOneSkips(r);
  if (status === 'active') return { entries: [], skipped };
  if (status !== 'suppressed') return { invalid: `status ${status || 'missing'}` };
  const reasons = Array.isArray(r.reasons)
    ? r.reasons.map(str)
    : str(r.reasons ?? r.reason)
        .split(';')
        .filter(Boolean);
  if (reasons.length === 0) return { invalid: 'suppressed with no reason' };
  const address = str(r.email);
  if (address === '') return { invalid: 'no address' };
  const date = typeof r.suppressedAt === 'number' ? r.suppressedAt : str(r.suppressedAt) || undefined;
  const entries: ParsedEntry[] = [];
  for (const reason of reasons) {
    const kind = REASON_KIND[reason];
    if (!kind) return { invalid: `unknown reason ${reason}` };
    entries.push({
      email: address,
      kind,
      ...(date !== undefined ? { date } : {}),
      ...(reason === 'soft_bounce_limit' ? { note: 'soft_bounce_limit' } : {}),
    });
  }
  return { entries, skipped };
}

/** What a format-1 line holds that its reasons do not bring back. */
function formatOneSkips(r: Record<string, unknown>): RowSkip[] {
  const skips: RowSkip[] = [];
  const skip = (what: string, detail: string) => skips.push({ what, detail, why: FORMAT_1_SKIP });
  if (isRecord(r.topics))
    for (const [topic, state] of Object.entries(r.topics))
      skip(isRecord(state) && state.status === 'subscribed' ? 'topic opt-in' : 'topic opt-out', topic);
  const reactivatedAt =
    typeof r.reactivatedAt === 'number' && Number.isFinite(r.reactivatedAt)
      ? new Date(r.reactivatedAt).toISOString()
      : str(r.reactivatedAt);
  if (reactivatedAt !== '') skip('reactivation', reactivatedAt);
  for (const key of isRecord(r.softBounces) ? Object.keys(r.softBounces) : []) skip('soft bounce', key);
  for (const key of isRecord(r.discounted) ? Object.keys(r.discounted) : []) skip('discounted evidence', key);
  return skips;
}
