/**
 * The suppression-list formats `ratchet suppressions import` reads, each mapped to evidence kinds.
 * Sources for every layout: docs/import-formats.md. A row maps to zero or more entries (a Ratchet
 * record with two reasons gives two), or to an `invalid` reason that the summary counts.
 */
import type { EvidenceKind } from '../../lambdas/core/suppression/record.js';

export interface ParsedEntry {
  email: string;
  kind: EvidenceKind;
  /** The source's date for the entry, as written (seconds, ms, ISO 8601 or RFC 2822); absent when it has none. */
  date?: string | number;
  note?: string;
  /** Topic-scoped unsubscribes (SendGrid groups, Mailgun tags). */
  topic?: string;
}

export type RowResult = ParsedEntry[] | { invalid: string };

export interface ImportFormat {
  name: string;
  layout: 'csv' | 'jsonl' | 'json';
  /** JSON layouts: the array inside the document. */
  list?: (document: Record<string, unknown>) => unknown;
  map(row: Record<string, unknown>): RowResult;
}

const str = (value: unknown): string => (typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '');
const one = (email: unknown, kind: EvidenceKind, date: unknown, note?: string, topic?: string): RowResult => {
  const address = str(email);
  if (address === '') return { invalid: 'no address' };
  const when = typeof date === 'number' ? date : str(date) || undefined;
  return [{ email: address, kind, ...(when !== undefined ? { date: when } : {}), ...(note ? { note } : {}), ...(topic ? { topic } : {}) }];
};
const column = (name: string, email: string, kind: EvidenceKind, date: string, note?: (r: Record<string, unknown>) => string): ImportFormat => ({
  name,
  layout: 'csv',
  map: (r) => one(r[email], kind, r[date], note?.(r)),
});

/** A Ratchet record (export): one entry per reason in effect, dated by when it was suppressed. */
const REASON_KIND: Record<string, EvidenceKind> = {
  complaint: 'complaint',
  hard_bounce: 'hard_bounce',
  unsubscribe: 'unsubscribe',
  manual: 'manual',
  // A crossed soft-bounce budget cannot be rebuilt from one entry; it arrives as a manual suppression.
  soft_bounce_limit: 'manual',
};
function ratchetRecord(r: Record<string, unknown>): RowResult {
  const status = str(r.status);
  if (status !== 'suppressed') return status === 'active' ? [] : { invalid: `status ${status || 'missing'}` };
  const reasons = Array.isArray(r.reasons) ? r.reasons.map(str) : str(r.reasons ?? r.reason).split(';').filter(Boolean);
  if (reasons.length === 0) return { invalid: 'suppressed with no reason' };
  const entries: ParsedEntry[] = [];
  for (const reason of reasons) {
    const kind = REASON_KIND[reason];
    if (!kind) return { invalid: `unknown reason ${reason}` };
    const result = one(r.email, kind, (r.suppressedAt as string | number | undefined) ?? undefined, reason === 'soft_bounce_limit' ? 'soft_bounce_limit' : undefined);
    if (!Array.isArray(result)) return result;
    entries.push(...result);
  }
  return entries;
}

const SES_KIND: Record<string, EvidenceKind> = { BOUNCE: 'hard_bounce', COMPLAINT: 'complaint' };
const POSTMARK_KIND: Record<string, EvidenceKind> = { HardBounce: 'hard_bounce', SpamComplaint: 'complaint' };

export const IMPORT_FORMATS: readonly ImportFormat[] = [
  { name: 'jsonl', layout: 'jsonl', map: ratchetRecord },
  { name: 'csv', layout: 'csv', map: ratchetRecord },
  {
    name: 'ses',
    layout: 'json',
    list: (d) => d.SuppressedDestinationSummaries,
    map: (r) => {
      const kind = SES_KIND[str(r.Reason)];
      return kind ? one(r.EmailAddress, kind, r.LastUpdateTime) : { invalid: `unknown Reason ${str(r.Reason) || 'missing'}` };
    },
  },
  column('sendgrid-bounces', 'email', 'hard_bounce', 'created', (r) => [str(r.status), str(r.reason)].filter(Boolean).join(' ')),
  // A block is a temporary rejection: it spends the soft-bounce budget rather than suppressing at once.
  column('sendgrid-blocks', 'email', 'soft_bounce', 'created', (r) => [str(r.status), str(r.reason)].filter(Boolean).join(' ')),
  column('sendgrid-spam-reports', 'email', 'complaint', 'created'),
  column('sendgrid-invalid-emails', 'email', 'hard_bounce', 'created', (r) => str(r.reason)),
  column('sendgrid-global-unsubscribes', 'email', 'unsubscribe', 'created'),
  {
    name: 'sendgrid-group-unsubscribes',
    layout: 'csv',
    // The canonical topic of a SendGrid suppression group, as its webhooks name it (docs/suppression-table.md, topics).
    map: (r) => one(r.email, 'unsubscribe', r.created_at ?? r.created, str(r.group_name) || undefined, str(r.group_id) ? `sendgrid:group:${str(r.group_id)}` : undefined),
  },
  column('mailgun-bounces', 'address', 'hard_bounce', 'created_at', (r) => [str(r.code), str(r.error)].filter(Boolean).join(' ')),
  column('mailgun-complaints', 'address', 'complaint', 'created_at'),
  {
    name: 'mailgun-unsubscribes',
    layout: 'csv',
    // `*` (or no tag) is every message from the domain; any other tag is one topic.
    map: (r) => {
      const tag = str(r.tags ?? r.tag);
      return one(r.address, 'unsubscribe', r.created_at, undefined, tag && tag !== '*' ? `mailgun:tag:${tag}` : undefined);
    },
  },
  {
    name: 'postmark',
    layout: 'json',
    list: (d) => d.Suppressions,
    map: (r) => {
      const reason = str(r.SuppressionReason);
      // A ManualSuppression whose Origin is the recipient is Postmark's own unsubscribe link.
      const kind = POSTMARK_KIND[reason] ?? (reason === 'ManualSuppression' ? (str(r.Origin) === 'Recipient' ? 'unsubscribe' : 'manual') : undefined);
      return kind ? one(r.EmailAddress, kind, r.CreatedAt, `${reason} (${str(r.Origin)})`) : { invalid: `unknown SuppressionReason ${reason || 'missing'}` };
    },
  },
];

export const IMPORT_FORMAT_NAMES = IMPORT_FORMATS.map((f) => f.name);

/** Epoch ms from a source date: seconds or ms as numbers or digits, ISO 8601, or RFC 2822. */
export function parseSourceDate(value: string | number): number | undefined {
  const numeric = typeof value === 'number' ? value : /^\d+(\.\d+)?$/.test(value) ? Number(value) : undefined;
  if (numeric !== undefined) return Number.isFinite(numeric) && numeric > 0 ? Math.round(numeric < 1e11 ? numeric * 1000 : numeric) : undefined;
  const ms = Date.parse(String(value));
  return Number.isNaN(ms) ? undefined : ms;
}
