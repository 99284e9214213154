/**
 * SES -> SNS -> SQS (context `sesFeed=sqs`, the default): the queue the SES topic delivers to, its
 * subscription, and the feed function that drains it in batches with the edge code (lambdas/ses-feed.ts).
 * The feed has its own function so that its batches never compete with the front door's requests for
 * the edge's reserved concurrency (Function URL), and its timeout is not bound by SNS's 15 s.
 *
 * SNS retries a delivery to SQS for 23 days, no HTTP status is involved and no public door stands in
 * the way, so an authentic SES event can no longer be lost to its age, a 4xx or a flood. Raw message
 * delivery is off: each body is the signed SNS envelope, which the feed verifies exactly as
 * `POST /webhooks/ses` does (the queue policy is not trusted on its own).
 *
 * A message the feed cannot admit for good is moved to the SES dead-letter queue by the feed itself;
 * one that keeps failing for a transient reason is moved there by the redrive policy after
 * SES_FEED.maxReceiveCount receives. The subscription has the same dead-letter queue, for the rare
 * delivery SNS cannot make at all (the queue policy refusing it).
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RUNTIME_VARIABLE } from '../../lambdas/adapters/environment.js';
import { SES_FEED } from '../definitions.js';
import { HandlerFunction } from './handler-function.js';
import { secureQueue } from './secure-queue.js';
import { allow } from './tables.js';

export interface SesQueueFeedProps {
  readonly topic: sns.ITopic;
  /** Topics allowed to send to the queue: the stack's own, then `extraTopicArns`. */
  readonly allowedTopicArns: readonly string[];
  readonly queueName: string;
  readonly deadLetterQueue: sqs.IQueue;
  /** The edge's environment without the secret ARNs SES does not need: the feed gets it, plus SES_DEAD_LETTER_QUEUE_URL. */
  readonly environment: Record<string, string>;
  readonly projectRoot: string;
  readonly logRetention: logs.RetentionDays;
}

export class SesQueueFeed extends Construct {
  readonly queue: sqs.Queue;
  readonly subscription: sns.Subscription;
  readonly feed: HandlerFunction;
  readonly eventSource: lambda.EventSourceMapping;

  constructor(scope: Construct, id: string, props: SesQueueFeedProps) {
    super(scope, id);
    this.queue = secureQueue(this, 'Queue', {
      queueName: props.queueName,
      visibilityTimeout: Duration.seconds(SES_FEED.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(SES_FEED.retentionDays),
      deadLetterQueue: { queue: props.deadLetterQueue, maxReceiveCount: SES_FEED.maxReceiveCount },
    });
    // Only SNS, and only for the allowed topics (another account's topic is subscribed by hand).
    const policy = this.queue.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'AllowSesTopics',
        principals: [new iam.ServicePrincipal('sns.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.queue.queueArn],
        conditions: { ArnEquals: { 'aws:SourceArn': [...props.allowedTopicArns] } },
      }),
    );
    // A plain Subscription rather than SqsSubscription, whose own queue policy would allow the
    // stack's topic only; ours above names every allowed topic.
    this.subscription = new sns.Subscription(this, 'Subscription', {
      topic: props.topic,
      protocol: sns.SubscriptionProtocol.SQS,
      endpoint: this.queue.queueArn,
      rawMessageDelivery: false,
      deadLetterQueue: props.deadLetterQueue,
    });
    if (policy.policyDependable) this.subscription.node.addDependency(policy.policyDependable);

    this.feed = new HandlerFunction(this, 'Feed', {
      projectRoot: props.projectRoot,
      entry: 'lambdas/ses-feed.ts',
      description: 'Ratchet SES feed: verifies and admits the SNS envelopes the SES topic queues, with the edge code',
      timeoutSeconds: SES_FEED.timeoutSeconds,
      memoryMb: SES_FEED.memoryMb,
      environment: { ...props.environment, [RUNTIME_VARIABLE.sesDeadLetterQueueUrl]: props.deadLetterQueue.queueUrl },
      logRetention: props.logRetention,
    });
    // What can never be admitted goes to the dead-letter queue on its first receive.
    allow(this.feed.role, ['sqs:SendMessage'], [props.deadLetterQueue.queueArn]);
    // Batches of up to SES_FEED.batchSize, with partial batch failures, at most SES_FEED.maxConcurrency
    // at once: a burst waits on the queue, unreceived, instead of taking the account's concurrency.
    this.queue.grantConsumeMessages(this.feed.function);
    this.eventSource = this.feed.function.addEventSourceMapping('SqsEventSource', {
      eventSourceArn: this.queue.queueArn,
      batchSize: SES_FEED.batchSize,
      maxBatchingWindow: Duration.seconds(SES_FEED.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
      maxConcurrency: SES_FEED.maxConcurrency,
    });
  }
}
