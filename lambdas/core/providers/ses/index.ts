/**
 * Amazon SES, delivered through an SNS HTTPS subscription. The credentials are not secrets but the
 * allowed TopicArns: SNS signs with AWS's own certificate, so what we must pin is *whose* topic.
 */
import { MalformedRequestError } from '../../errors.js';
import type { NormalizedEvent } from '../../event.js';
import type { ProviderDefinition, Receipt, WebhookProvider } from '../../provider.js';
import { sesEventsFromMessage } from './map.js';
import { readSnsSettings, SNS_SETTING } from './sns/settings.js';
import { createSnsVerifier } from './verify.js';

export const SES_PROVIDER_NAME = 'ses';
/** SES's credentials are not secrets: the allowed SNS TopicArns, which the stack writes itself. */
export const SES_TOPIC_ARNS_VARIABLE = 'SNS_TOPIC_ARNS';

export const sesProvider: ProviderDefinition = {
  name: SES_PROVIDER_NAME,
  credentialsVariable: SES_TOPIC_ARNS_VARIABLE,
  describeCredentials:
    "The allowed SNS topic ARNs, SES's credential (the stack sets its own topic and `extraTopicArns`)",
  // At-least-once: a notification SES publishes twice reaches us under two SNS MessageIds.
  keysByContent: true,
  settings: [
    {
      variable: SNS_SETTING.minimumSignatureVersion,
      describe: 'Lowest accepted SNS SignatureVersion, 1 (SHA-1) or 2 (SHA-256) (default 1)',
    },
    {
      variable: SNS_SETTING.maxAgeSeconds,
      describe:
        'How old an SNS Timestamp may be, whole seconds below the inbox TTL (default INBOX_TTL_DAYS less one day)',
    },
    {
      variable: SNS_SETTING.maxFutureSeconds,
      describe: 'How far ahead an SNS Timestamp may be, whole seconds up to 48 h (default 300)',
    },
  ],
  signatureWindow: (settings) => ({
    window: readSnsSettings(settings).window,
    variables: [SNS_SETTING.maxAgeSeconds, SNS_SETTING.maxFutureSeconds],
  }),
  create(deps): WebhookProvider {
    const settings = readSnsSettings(deps.settings);
    const verify = createSnsVerifier({
      allowedTopics: deps.credentials,
      certificates: deps.certificates,
      now: deps.now,
      minimumSignatureVersion: settings.minimumSignatureVersion,
      window: settings.window,
    });
    return {
      name: SES_PROVIDER_NAME,
      async receive(request, options): Promise<Receipt> {
        const { envelope, timestampMs, text } = await verify(request, {
          waiveMaxAge: options?.fromSnsDeadLetterQueue === true,
        });
        switch (envelope.Type) {
          case 'SubscriptionConfirmation':
            // Never fetched here: confirming is the edge's (or an operator's) explicit decision.
            return {
              events: [],
              control: {
                type: 'SubscriptionConfirmation',
                topicArn: envelope.TopicArn,
                token: envelope.Token,
                messageId: envelope.MessageId,
              },
            };
          case 'UnsubscribeConfirmation':
            return {
              events: [],
              control: { type: 'UnsubscribeConfirmation', topicArn: envelope.TopicArn, messageId: envelope.MessageId },
            };
          case 'Notification':
            return { events: notificationEvents(envelope.Message, envelope.MessageId, timestampMs, text) };
        }
      },
    };
  },
};

/**
 * The SES events of an authentic Notification from an allowlisted topic. Such a request is never
 * refused: SNS counts any 4xx as delivered and drops the message, so a 400 would lose exactly what a
 * 2xx loses, only without a trace. A Message we cannot read as SES JSON therefore becomes one ignored
 * event, whose reason the edge logs; the raw envelope is in the log line's provider and message id.
 * Unusable recipients inside a readable message are handled per recipient (map.ts).
 */
export function notificationEvents(
  message: string,
  snsMessageId: string,
  snsTimestampMs: number,
  raw: string,
): NormalizedEvent[] {
  try {
    return sesEventsFromMessage(message, { provider: SES_PROVIDER_NAME, snsMessageId, snsTimestampMs, raw });
  } catch (error) {
    if (!(error instanceof MalformedRequestError)) throw error;
    return [
      {
        provider: SES_PROVIDER_NAME,
        eventId: `${snsMessageId}:`,
        recipient: '',
        kind: 'ignored',
        ignoredReason: `unreadable SES message: ${error.message}`,
        occurredAt: snsTimestampMs,
        detail: {},
        raw,
      },
    ];
  }
}
