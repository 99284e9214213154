/**
 * The lists' filter: read from a query string (or a form), checked (a bad value is a 400 naming it),
 * and applied as a predicate on the pure record, the same one for the page, the CSV and the bulk
 * reactivation. The date range is on `suppressedAt` (when the address became suppressed, UTC days,
 * both ends included); a record that is not suppressed has none, so a range leaves it out.
 */
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { IMPORT_PROVIDER, SUPPRESSION_REASONS, type SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import type { TopicAliases } from '../../lambdas/core/topics.js';
import { UNSUBSCRIBE_PROVIDER } from '../../lambdas/core/unsubscribe/provider.js';
import { hasTopic } from '../cli/commands/transfer.js';
import { InputError } from '../cli/context.js';

export const STATUSES = ['suppressed', 'active'] as const;
/** Every name an evidence entry's `provider` can hold. */
export const EVIDENCE_PROVIDERS = [
  ...PROVIDERS.map((p) => p.name),
  UNSUBSCRIBE_PROVIDER.name,
  'manual',
  IMPORT_PROVIDER,
];

export interface ListFilter {
  status?: (typeof STATUSES)[number];
  reason?: (typeof SUPPRESSION_REASONS)[number];
  provider?: string;
  topic?: string;
  /** YYYY-MM-DD, as given. */
  from?: string;
  to?: string;
}

const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d\d-\d\d$/;

export function readFilter(params: URLSearchParams): ListFilter {
  const value = (name: string) => params.get(name)?.trim() || undefined;
  const filter: ListFilter = {};
  const status = value('status');
  if (status !== undefined) filter.status = oneOf('status', status, STATUSES);
  const reason = value('reason');
  if (reason !== undefined) filter.reason = oneOf('reason', reason, SUPPRESSION_REASONS);
  const provider = value('provider');
  if (provider !== undefined) filter.provider = oneOf('provider', provider, EVIDENCE_PROVIDERS);
  const topic = value('topic');
  if (topic !== undefined) {
    if (topic.length > 200) throw new InputError('topic: at most 200 characters');
    filter.topic = topic;
  }
  for (const end of ['from', 'to'] as const) {
    const day = value(end);
    if (day === undefined) continue;
    if (!DATE.test(day) || Number.isNaN(Date.parse(`${day}T00:00:00Z`)))
      throw new InputError(`${end}: a date as YYYY-MM-DD, got ${JSON.stringify(day)}`);
    filter[end] = day;
  }
  if (filter.from && filter.to && filter.from > filter.to) throw new InputError('from is after to');
  return filter;
}

function oneOf<T extends string>(name: string, given: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(given))
    throw new InputError(`${name}: one of ${allowed.join(', ')}, got ${JSON.stringify(given)}`);
  return given as T;
}

/** `aliases`: TOPIC_ALIASES, so the topic filter finds what the client reads as that topic. */
export function matches(filter: ListFilter, record: SuppressionRecord, aliases?: TopicAliases): boolean {
  if (filter.status && record.status !== filter.status) return false;
  if (filter.reason && !record.reasons.includes(filter.reason)) return false;
  if (filter.provider && !fromProvider(record, filter.provider)) return false;
  if (filter.topic && !hasTopic(record, filter.topic, aliases)) return false;
  if (filter.from || filter.to) {
    const at = record.suppressedAt;
    if (at === undefined) return false;
    if (filter.from && at < Date.parse(`${filter.from}T00:00:00Z`)) return false;
    if (filter.to && at >= Date.parse(`${filter.to}T00:00:00Z`) + DAY_MS) return false;
  }
  return true;
}

/** Any evidence from that provider: in effect, discounted, soft bounces, or a topic's. */
function fromProvider(record: SuppressionRecord, provider: string): boolean {
  const maps = [
    record.evidence,
    record.discounted ?? {},
    record.softBounces,
    ...Object.values(record.topics ?? {}).map((t) => t.evidence),
  ];
  return maps.some((map) => Object.values(map).some((e) => e.provider === provider));
}

/** The filter as query parameters (for links, the CSV and the bulk forms). */
export function filterParams(filter: ListFilter): Record<string, string | undefined> {
  return { ...filter };
}

export function describeFilter(filter: ListFilter): string {
  const parts = Object.entries(filter).map(([k, v]) => `${k} ${v}`);
  return parts.length ? parts.join(', ') : 'no filter (every record)';
}
