/**
 * The event queue between the edge and the consumer, and its dead-letter queue (SSE, TLS-only).
 * A message the consumer fails `maxReceiveCount` times moves to the DLQ, which alarms.
 */
import { Duration } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CONSUMER, QUEUE } from '../definitions.js';
import { secureQueue } from './secure-queue.js';
import { allow } from './tables.js';

export interface EventQueueProps {
  readonly queueName: string;
  readonly deadLetterQueueName: string;
}

export class EventQueue extends Construct {
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: EventQueueProps) {
    super(scope, id);
    this.deadLetterQueue = secureQueue(this, 'DeadLetterQueue', {
      queueName: props.deadLetterQueueName,
      retentionPeriod: Duration.days(QUEUE.deadLetterRetentionDays),
    });
    this.queue = secureQueue(this, 'Queue', {
      queueName: props.queueName,
      visibilityTimeout: Duration.seconds(QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(QUEUE.retentionDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: QUEUE.maxReceiveCount },
    });
  }

  grantSend(grantee: iam.IGrantable): void {
    allow(grantee, ['sqs:SendMessage'], [this.queue.queueArn]);
  }

  /**
   * Batches of up to CONSUMER.eventSourceBatchSize, gathered for at most CONSUMER.maxBatchingWindowSeconds,
   * with partial batch failures.
   */
  attachConsumer(fn: lambda.Function): lambda.EventSourceMapping {
    this.queue.grantConsumeMessages(fn);
    return fn.addEventSourceMapping('SqsEventSource', {
      eventSourceArn: this.queue.queueArn,
      batchSize: CONSUMER.eventSourceBatchSize,
      maxBatchingWindow: Duration.seconds(CONSUMER.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: CONSUMER.maxConcurrency,
    });
  }
}
