/**
 * The inbox key the SES feed stores a demo-signed envelope under: its first actionable event's,
 * keyed by content as the edge keys SES events. For tests that aim a fault at one envelope's row.
 */
import { inboxKey } from '../../lambdas/adapters/dynamodb-inbox.js';
import { isActionable } from '../../lambdas/core/event.js';
import { keyedByContent } from '../../lambdas/core/pipeline/content-key.js';
import { sesEventsFromMessage } from '../../lambdas/core/providers/ses/map.js';

export function sesEnvelopeInboxKey(body: string): string | undefined {
  const envelope = JSON.parse(body) as { Message: string; MessageId: string; Timestamp: string };
  const events = sesEventsFromMessage(envelope.Message, {
    provider: 'ses',
    snsMessageId: envelope.MessageId,
    snsTimestampMs: Date.parse(envelope.Timestamp),
    raw: body,
  }).filter(isActionable);
  const first = events[0];
  return first ? inboxKey('ses', keyedByContent(first).eventId) : undefined;
}
