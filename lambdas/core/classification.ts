/**
 * What a provider's mapping table decides for one event, before the recipient is checked, and the
 * one rule for events whose recipient we cannot key suppression state on.
 */
import { MalformedRequestError } from './errors.js';
import { type EventDetail, type EventKind, normalizeRecipient } from './event.js';

export interface Classification {
  kind: EventKind;
  /** Required when `kind` is `ignored`. */
  ignoredReason?: string;
  /** The canonical topic of a topic-scoped `unsubscribe`, or of a `subscribe` (see ../topics.ts). */
  topic?: string;
  detail: EventDetail;
}

export const INVALID_RECIPIENT_REASON = 'recipient is not an email address';

/**
 * Attaches the normalized recipient, or turns the event into an ignored one when the recipient is not
 * an address (`recipient` is then the empty string: ignored events are dropped at the edge, never stored).
 *
 * Why ignore instead of rejecting the request with 400: the body is authentic (signed by the provider),
 * so a 400 helps nobody. SendGrid and Mailgun retry any non-2xx with the same bytes (24 h and 8 h), every
 * retry fails the same way, and then the whole request is lost: for a SendGrid batch that is up to
 * ~1,500 other events, hard bounces included. And our address check is deliberately stricter than
 * RFC 5321 (no quoted local parts), so a provider can legitimately send an address we refuse.
 * The event itself could never have changed suppression state, so ignoring it loses nothing.
 */
export function withRecipient(value: unknown, classification: Classification): Classification & { recipient: string } {
  try {
    return { ...classification, recipient: normalizeRecipient(value) };
  } catch (error) {
    if (!(error instanceof MalformedRequestError)) throw error;
    return {
      kind: 'ignored',
      // An event that was ignored anyway keeps its own, more telling, reason.
      ignoredReason: classification.kind === 'ignored' ? classification.ignoredReason : INVALID_RECIPIENT_REASON,
      detail: classification.detail,
      recipient: '',
    };
  }
}

/**
 * How many events were ignored for each reason, for the edge's log line: an operator must be able to
 * see why an authentic request changed nothing (an unreadable SES message, an address we refuse).
 * Counts rather than one line per event, because a SendGrid batch can carry a thousand opens.
 */
export function ignoredReasons(events: readonly { kind: EventKind; ignoredReason?: string }[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const event of events) {
    if (event.kind !== 'ignored') continue;
    const reason = event.ignoredReason ?? 'unspecified';
    counts[reason] = (counts[reason] ?? 0) + 1;
  }
  return counts;
}

/** Copies only string values: provider fields are untrusted in type even when authentic. */
export function stringField(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** EventDetail without the keys whose value is undefined, so events compare and serialize cleanly. */
export function compactDetail(detail: EventDetail): EventDetail {
  const out: EventDetail = {};
  for (const [key, value] of Object.entries(detail) as Array<[keyof EventDetail, EventDetail[keyof EventDetail]]>) {
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
