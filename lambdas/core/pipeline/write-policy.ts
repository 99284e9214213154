/**
 * Which applications the consumer does not write. A `delivered` event for an address with no record
 * has nothing to discount (no soft bounces) and creates nothing sending code reads (`status` would be
 * `active`, the same as no record), yet it is most of the traffic. So it is skipped: no item is written.
 *
 * The one thing this changes (docs/suppression-table.md): the skipped delivery's time is not kept,
 * so a soft bounce dated before it that arrives later still counts against the budget, where it would
 * otherwise have been superseded by the delivery. Complaints, hard bounces and unsubscribes are
 * unaffected, and the record still converges over the events that were written.
 *
 * The consumer passes this rule to the store with each event (consume.ts); other writers (an import's
 * topic events) apply without it.
 */
import type { NormalizedEvent } from '../event.js';
import { type ApplyResult, emptyRecord, type SuppressionRecord } from '../suppression/index.js';

export function skipWithoutRecord(
  record: SuppressionRecord | undefined,
  event: Pick<NormalizedEvent, 'kind' | 'recipient'>,
): ApplyResult | undefined {
  if (record !== undefined || event.kind !== 'delivered') return undefined;
  return { record: emptyRecord(event.recipient), changed: false, effect: 'no_change', becameSuppressed: false };
}
