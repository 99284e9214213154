/**
 * The soft-bounce budget as a pure function of event times: never of the wall clock, and never of
 * the order the bounces arrived in. It counts messages, not events: a provider that reports every
 * delivery attempt (Mailgun's temporary failures, SendGrid's blocks) sends several soft bounces for
 * one message, and greylisting, the common case, always clears on a later attempt.
 */
import type { Evidence } from './record.js';

/** The soft bounces of one message (or one bounce without a message id), as the budget sees them. */
export interface Strike {
  /** Event times of the entries kept for it, ascending. */
  times: number[];
  /**
   * It holds the per-message maximum of entries (softBouncesPerMessage), so older bounces of the
   * message may have been let go, anywhere before its oldest kept one: it then counts in every window
   * that starts at or before its newest bounce. That is what keeps the status independent of arrival
   * order when entries are dropped (see normalize.ts).
   */
  full: boolean;
}

type Keyed = [key: string, entry: Evidence];

/**
 * Which strike an entry belongs to: its provider's message id, else the entry alone (an event
 * without a message id, and every entry written before message ids were kept, counts on its own).
 * The two prefixes keep the two kinds of key apart whatever the ids contain.
 */
export function strikeKey(key: string, entry: Evidence): string {
  return entry.messageId === undefined ? `e${key}` : `m${JSON.stringify([entry.provider, entry.messageId])}`;
}

/**
 * From soft-bounce entries sorted newest first: the newest `perMessage` entries of each message (still
 * newest first), and the strikes they form. Keeping the newest (never the oldest) is what commutes
 * with pruning, whose thresholds remove the oldest entries.
 */
export function groupStrikes(newestFirst: readonly Keyed[], perMessage: number): { kept: Keyed[]; strikes: Strike[] } {
  const byMessage = new Map<string, { times: number[]; message: boolean }>();
  const kept: Keyed[] = [];
  for (const keyed of newestFirst) {
    const group = strikeKey(keyed[0], keyed[1]);
    const strike = byMessage.get(group) ?? { times: [], message: keyed[1].messageId !== undefined };
    if (strike.times.length >= perMessage) continue;
    strike.times.push(keyed[1].occurredAt);
    byMessage.set(group, strike);
    kept.push(keyed);
  }
  const strikes = [...byMessage.values()].map(({ times, message }) => ({
    times: times.reverse(),
    full: message && times.length >= perMessage,
  }));
  return { kept, strikes };
}

/**
 * The earliest start of a run: `limit` distinct strikes each with a bounce in one span of at most
 * `windowMs` (last minus first, inclusive); undefined when there is none. A run is dated by the
 * earliest bounce of the strikes in it: a strike is dated by its earliest bounce, and a message
 * retried into the span counts there by the attempts inside it.
 *
 * Every candidate span starts at a bounce, which is enough: sliding a span right until it starts at
 * its first bounce loses none of the bounces inside it. Adding bounces (to a strike or as new
 * strikes) only adds runs and only moves starts earlier, which is what lets callers min-merge it;
 * and every bounce of a run is at or after its start, so a reactivation that clears the start
 * clears the whole run.
 */
export function earliestCrossingStart(strikes: readonly Strike[], limit: number, windowMs: number): number | undefined {
  const starts = [...new Set(strikes.flatMap((s) => s.times))].sort((a, b) => a - b);
  let earliest: number | undefined;
  for (const from of starts) {
    let present = 0;
    let start = from;
    for (const { times, full } of strikes) {
      const inside = times.some((t) => t >= from && t - from <= windowMs);
      if (!inside && !(full && times[times.length - 1]! >= from)) continue;
      present++;
      start = Math.min(start, times[0]!);
    }
    if (present >= limit && (earliest === undefined || start < earliest)) earliest = start;
  }
  return earliest;
}
