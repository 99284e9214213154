/**
 * Mailgun's `event-data.event` vocabulary → our event kinds. Mailgun's two failure webhooks
 * (`permanent_fail`, `temporary_fail`) both deliver `event: "failed"`, told apart by `severity`.
 * Field reference: https://documentation.mailgun.com/docs/mailgun/user-manual/events/event-types
 */
import { compactDetail, stringField, type Classification } from '../../classification.js';
import type { EventDetail } from '../../event.js';
import { isRecord } from '../../json.js';

/**
 * A permanent failure with one of these reasons means Mailgun did not even try: the address is on its
 * own suppression list (code 605, "Not delivering to previously bounced address"). It is an echo of
 * an earlier event, of the kind the list is named after.
 */
const SUPPRESSION_ECHOES: Readonly<Record<string, Classification['kind']>> = {
  'suppress-bounce': 'hard_bounce',
  'suppress-unsubscribe': 'unsubscribe',
  'suppress-complaint': 'complaint',
};

const IGNORED: Readonly<Record<string, string>> = {
  accepted: 'lifecycle: accepted for delivery, not an outcome',
  rejected: 'Mailgun refused the send request; no delivery was attempted',
  stored: 'lifecycle: message stored',
  opened: 'engagement event',
  clicked: 'engagement event',
};

/** Classifies one `event-data` object. `event` is its `event` field, already checked to be a string. */
export function classifyMailgunEvent(event: string, data: Readonly<Record<string, unknown>>): Classification {
  const isFailure = event === 'failed';
  const detail: EventDetail = compactDetail({
    ...deliveryStatusDetail(data['delivery-status']),
    bounceType: isFailure ? stringField(data.severity) : undefined,
    bounceSubType: isFailure ? stringField(data.reason) : undefined,
    providerEventType: event,
  });

  switch (event) {
    case 'delivered':
      return { kind: 'delivered', detail };
    case 'failed': {
      if (data.severity === 'temporary') return { kind: 'soft_bounce', detail };
      if (data.severity !== 'permanent') {
        return { kind: 'ignored', ignoredReason: 'failure without a known severity (permanent/temporary)', detail };
      }
      const reason = typeof data.reason === 'string' ? data.reason : '';
      const echoed = Object.hasOwn(SUPPRESSION_ECHOES, reason) ? SUPPRESSION_ECHOES[reason] : undefined;
      if (echoed) return { kind: echoed, detail: { ...detail, echo: true } };
      return { kind: 'hard_bounce', detail };
    }
    case 'complained':
      return { kind: 'complaint', detail };
    case 'unsubscribed':
      return { kind: 'unsubscribe', detail };
    default: {
      const reason = Object.hasOwn(IGNORED, event) ? IGNORED[event] : undefined;
      return { kind: 'ignored', ignoredReason: reason ?? 'unknown Mailgun event type', detail };
    }
  }
}

/**
 * `delivery-status`: the enhanced code (`5.1.1`) is the status when Mailgun has one, else the plain SMTP
 * code (`550`, or Mailgun's own `605`); the human text is `message`, or `description` when that is empty.
 */
function deliveryStatusDetail(value: unknown): EventDetail {
  if (!isRecord(value)) return {};
  const code = typeof value.code === 'number' && Number.isInteger(value.code) ? String(value.code) : stringField(value.code);
  return {
    status: stringField(value['enhanced-code']) ?? code,
    diagnosticCode: stringField(value.message) ?? stringField(value.description),
  };
}
