/**
 * A record's evidence as one timeline, newest first: what counts, what a reactivation discounted, the
 * soft bounces spending the budget and every topic's opt-outs and opt-ins. Each entry keeps the key
 * its inbox row would have (`provider#eventId`), so the page can show the raw event while it is stored.
 */
import { type Evidence, IMPORT_PROVIDER, type SuppressionRecord } from '../../lambdas/core/suppression/index.js';

export type Standing = 'counts' | 'discounted' | 'soft bounce' | 'topic';

export interface TimelineEntry extends Evidence {
  standing: Standing;
  /** The topic the entry is about (topic evidence only). */
  topic?: string;
  /** The inbox row's key; absent for manual and imported entries, which came from no webhook. */
  inboxKey?: string;
}

/** Providers whose entries have no inbox row. */
const NO_ROW = new Set(['manual', IMPORT_PROVIDER]);

export function timeline(record: SuppressionRecord): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  const add = (map: Record<string, Evidence> | undefined, standing: Standing, topic?: string) => {
    for (const [key, evidence] of Object.entries(map ?? {})) {
      const rowKey = key.includes(':') ? key.slice(key.indexOf(':') + 1) : key;
      entries.push({
        ...evidence,
        standing,
        ...(topic !== undefined ? { topic } : {}),
        ...(!NO_ROW.has(evidence.provider) && rowKey.includes('#') ? { inboxKey: rowKey } : {}),
      });
    }
  };
  add(record.evidence, 'counts');
  add(record.discounted, 'discounted');
  add(record.softBounces, 'soft bounce');
  for (const [topic, state] of Object.entries(record.topics ?? {})) add(state.evidence, 'topic', topic);
  return entries.sort((a, b) => b.occurredAt - a.occurredAt);
}

/** The provider's own words about the event, as label/value pairs (only those it sent). */
export function providerDetail(entry: Evidence): Array<[string, string]> {
  const pairs: Array<[string, string | boolean | undefined]> = [
    ['event type', entry.providerEventType],
    ['bounce type', [entry.bounceType, entry.bounceSubType].filter(Boolean).join(' / ') || undefined],
    ['SMTP status', entry.status],
    ['diagnostic', entry.diagnosticCode],
    ['feedback type', entry.complaintFeedbackType],
    ['already on the provider list', entry.echo ? 'yes' : undefined],
  ];
  return pairs.flatMap(([label, value]) => (value === undefined || value === '' ? [] : [[label, String(value)]]));
}
