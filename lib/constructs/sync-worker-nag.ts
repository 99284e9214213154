/**
 * The sync worker's cdk-nag findings that are deliberate, with the reason, keyed by the resource each
 * is about (lib/constructs/sync-worker.ts acknowledges them).
 */
export const SYNC_NAG_ACKNOWLEDGEMENTS = {
  secrets: [
    [
      'AwsSolutions-SMG4',
      'Provider API keys are issued by the provider and rotated in its console; a Lambda cannot rotate them.',
    ],
  ],
  deadLetters: [
    [
      'Serverless-SQSRedrivePolicy',
      'A dead-letter queue has no dead-letter queue of its own; it alarms and `ratchet sync retry` redrives it.',
    ],
  ],
  sesActions: [
    [
      'AwsSolutions-IAM5[Resource::*]',
      'The SES account suppression list has no resource ARN: the four ses:*SuppressedDestination actions only take "*" (Service Authorization Reference, Amazon SES v2).',
    ],
  ],
  eventSource: [
    [
      'Serverless-LambdaEventSourceMappingDestination',
      "The worker dead-letters a change itself once its retries span the horizon, and the queue's redrive policy is the backstop; both alarm. An on-failure destination would duplicate them.",
    ],
  ],
  schedule: [
    [
      'Serverless-EventBusDLQ',
      'A missed sweep is repeated by the next one a minute later; the marker stays in the table until the change is pushed.',
    ],
  ],
  functions: [
    [
      'AwsSolutions-L1',
      'Pinned to nodejs22.x, the runtime the handlers are built and tested for; a runtime upgrade is a deliberate change.',
    ],
    ['Serverless-LambdaLatestVersion', 'Pinned to nodejs22.x, the runtime the handlers are built and tested for.'],
    [
      'Serverless-LambdaDLQ',
      'Not invoked asynchronously for its work: SQS invokes the worker (the queue has its dead letters) and a missed sweep is made up by the next one a minute later.',
    ],
    [
      'Serverless-LambdaTracing',
      'X-Ray adds cost per request; the log lines and EMF metrics cover what an operator needs.',
    ],
  ],
} as const;
