/**
 * Hourly outcome counts per provider and sender, and the pure tally the edge runs over the events its
 * inbox admitted for the first time (see docs/reputation.md, "Each event counts once").
 */
import type { NormalizedEvent } from '../event.js';

export interface OutcomeCounts {
  delivered: number;
  hardBounced: number;
  softBounced: number;
  complained: number;
}

/** One counter increment: a provider, a sender, an hour, and what happened in it. */
export interface SenderTally extends OutcomeCounts {
  provider: string;
  sender: string;
  /** Start of the hour, epoch ms (UTC). */
  hourMs: number;
}

export const HOUR_MS = 3_600_000;

export const ZERO_COUNTS: Readonly<OutcomeCounts> = { delivered: 0, hardBounced: 0, softBounced: 0, complained: 0 };

const FIELD: Partial<Record<NormalizedEvent['kind'], keyof OutcomeCounts>> = {
  delivered: 'delivered',
  hard_bounce: 'hardBounced',
  soft_bounce: 'softBounced',
  complaint: 'complained',
};

export function hourStart(ms: number): number {
  return Math.floor(ms / HOUR_MS) * HOUR_MS;
}

/**
 * The attempts of a window: delivered + bounced + complained. No provider's attempt event reaches the
 * inbox (SES `Send`, SendGrid `processed` and Mailgun `accepted` are acknowledged and dropped), so
 * attempts are the outcomes; a complaint follows a delivery, so this overstates attempts by the
 * complaints (0.1 % at the worst rate anyone tolerates), which understates no rate by more than that.
 */
export function attempts(c: OutcomeCounts): number {
  return c.delivered + c.hardBounced + c.softBounced + c.complained;
}

export function addCounts(a: OutcomeCounts, b: OutcomeCounts): OutcomeCounts {
  return {
    delivered: a.delivered + b.delivered,
    hardBounced: a.hardBounced + b.hardBounced,
    softBounced: a.softBounced + b.softBounced,
    complained: a.complained + b.complained,
  };
}

/**
 * One tally per (provider, sender, hour) among `events`, in the hour they were admitted (`atMs`):
 * arrival, not the provider's event time, so a late retry never rewrites an hour already judged.
 * Events that are no outcome (unsubscribes, topic changes, ignored ones) and echoes (the provider
 * never tried: the address was on its own list) count nothing, and so does an event its mapper gave no
 * sender: the mapper's way of saying it is no outcome of a send (a Postmark SubscriptionChange).
 */
export function tally(events: readonly NormalizedEvent[], atMs: number): SenderTally[] {
  const hourMs = hourStart(atMs);
  const groups = new Map<string, SenderTally>();
  for (const event of events) {
    const field = FIELD[event.kind];
    const sender = event.sender;
    if (field === undefined || sender === undefined || event.detail.echo === true) continue;
    const key = `${event.provider}\u0000${sender}`;
    let group = groups.get(key);
    if (!group) {
      group = { provider: event.provider, sender, hourMs, ...ZERO_COUNTS };
      groups.set(key, group);
    }
    group[field]++;
  }
  return [...groups.values()];
}
