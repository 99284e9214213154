/**
 * Amazon SES, delivered through an SNS HTTPS subscription. The credentials are not secrets but the
 * allowed TopicArns: SNS signs with AWS's own certificate, so what we must pin is *whose* topic.
 */
import type { ProviderDefinition, Receipt, WebhookProvider } from '../provider.js';
import { readSnsSettings } from '../sns/settings.js';
import { createSnsVerifier } from '../sns/verifier.js';
import { sesEventsFromMessage } from './ses-payload.js';

export const SES_PROVIDER_NAME = 'ses';

export const sesProvider: ProviderDefinition = {
  name: SES_PROVIDER_NAME,
  credentialsVariable: 'SNS_TOPIC_ARNS',
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
        const { envelope, timestampMs, text } = await verify(request, { waiveMaxAge: options?.fromSnsDeadLetterQueue === true });
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
            return {
              events: sesEventsFromMessage(envelope.Message, {
                provider: SES_PROVIDER_NAME,
                snsMessageId: envelope.MessageId,
                snsTimestampMs: timestampMs,
                raw: text,
              }),
            };
        }
      },
    };
  },
};
