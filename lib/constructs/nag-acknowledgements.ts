/**
 * cdk-nag (AwsSolutions + Serverless) findings that are deliberate, each acknowledged on the one
 * resource it is about, with the reason. The real findings were fixed instead (TLS-only SNS topics,
 * API access logging, a dead-letter queue on the SNS subscription). docs/deploy.md lists these.
 */
import { Validations } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';
import type { Ratchet } from './ratchet.js';
import { WebhookApi } from './webhook-api.js';

type Acks = ReadonlyArray<readonly [id: string, reason: string]>;

/** Rule id -> reason, per kind of resource; exported for the template check (test/infra/nag.test.ts). */
export const NAG_ACKNOWLEDGEMENTS = {
  inbox: [
    [
      'AwsSolutions-DDB3',
      'The inbox holds dedup rows that expire in 30 days; losing them only re-admits a redelivery, which the ratchet absorbs. PITR is context inboxPointInTimeRecovery (off to halve its cost); the suppression table always has it.',
    ],
  ],
  providerSecrets: [
    [
      'AwsSolutions-SMG4',
      'Provider webhook keys are issued by the provider (SendGrid, Mailgun, Postmark...) and rotated in its console; a Lambda cannot rotate them. Rotation is an overlap of old and new keys, documented in docs/providers.md.',
    ],
  ],
  unsubscribeSecret: [
    [
      'AwsSolutions-SMG4',
      'Rotating the unsubscribe key automatically would break links already mailed (valid 400 days); rotation is adding a key in front of the old ones, by hand.',
    ],
  ],
  sesDeadLetterQueue: [
    [
      'AwsSolutions-SQS3',
      "This queue is itself a dead-letter queue: the redrive target of the SES feed queue and of the SES topic's subscription.",
    ],
    [
      'Serverless-SQSRedrivePolicy',
      'A dead-letter queue has no dead-letter queue of its own; its messages are replayed by `ratchet ses redrive`.',
    ],
  ],
  eventsDeadLetterQueue: [
    [
      'Serverless-SQSRedrivePolicy',
      "A dead-letter queue (the event queue's) has no dead-letter queue of its own; it alarms and is redriven by the operator.",
    ],
  ],
  functions: [
    [
      'AwsSolutions-L1',
      'Pinned to nodejs22.x, the runtime the handlers are built (esbuild target node22) and tested for; a runtime upgrade is a deliberate change.',
    ],
    [
      'Serverless-LambdaLatestVersion',
      'Pinned to nodejs22.x, the runtime the handlers are built and tested for; a runtime upgrade is a deliberate change.',
    ],
    [
      'Serverless-LambdaTracing',
      'X-Ray adds cost per request and needs xray:* on "*"; one JSON log line per request and EMF metrics cover what an operator needs.',
    ],
    [
      'Serverless-LambdaDLQ',
      'No function is invoked asynchronously: the front door invokes the edge synchronously (the sender retries), and SQS invokes the consumer and the SES feed (each queue has its own DLQ).',
    ],
  ],
  consumerEventSource: [
    [
      'Serverless-LambdaEventSourceMappingDestination',
      "Failed messages go to the queue's dead-letter queue after 5 receives (RedrivePolicy), which alarms; an on-failure destination would only duplicate it.",
    ],
  ],
  feedEventSource: [
    [
      'Serverless-LambdaEventSourceMappingDestination',
      'The SES feed queue moves a message to the SES dead-letter queue after its receives are used up (RedrivePolicy), and the feed moves one that can never be admitted there itself; that queue alarms. Lambda supports no on-failure destination for SQS sources.',
    ],
  ],
  apiRoutes: [
    [
      'AwsSolutions-APIG4',
      "Webhook routes are authenticated by the edge, which verifies each provider's signature on the raw bytes (the API's authorizer, in effect); unsubscribe routes are authenticated by their encrypted token. Providers cannot present IAM or JWT credentials.",
    ],
  ],
} as const satisfies Record<string, Acks>;

export function acknowledgeNagFindings(ratchet: Ratchet): void {
  const ack = (scope: IConstruct, acks: Acks) =>
    Validations.of(scope).acknowledge(...acks.map(([id, reason]) => ({ id, reason })));
  ack(ratchet.tables.inbox, NAG_ACKNOWLEDGEMENTS.inbox);
  if (ratchet.secrets.created) {
    for (const secret of ratchet.secrets.byProvider.values()) ack(secret, NAG_ACKNOWLEDGEMENTS.providerSecrets);
    ack(ratchet.secrets.unsubscribe, NAG_ACKNOWLEDGEMENTS.unsubscribeSecret);
  }
  ack(ratchet.ses.deadLetterQueue, NAG_ACKNOWLEDGEMENTS.sesDeadLetterQueue);
  ack(ratchet.events.deadLetterQueue, NAG_ACKNOWLEDGEMENTS.eventsDeadLetterQueue);
  for (const handler of [ratchet.edge, ratchet.consumer, ratchet.feed]) {
    if (handler) ack(handler.function.node.defaultChild!, NAG_ACKNOWLEDGEMENTS.functions);
  }
  ack(ratchet.consumerEventSource, NAG_ACKNOWLEDGEMENTS.consumerEventSource);
  if (ratchet.feedEventSource) ack(ratchet.feedEventSource, NAG_ACKNOWLEDGEMENTS.feedEventSource);
  if (ratchet.front instanceof WebhookApi) {
    for (const route of ratchet.front.routes) ack(route, NAG_ACKNOWLEDGEMENTS.apiRoutes);
  }
}
