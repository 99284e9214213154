/**
 * SES -> SNS -> SQS (context `sesFeed=sqs`, the default): the queue the SES topic delivers to, its
 * subscription, and the event source mapping that hands batches of it to the feed function.
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
import * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SES_FEED } from '../definitions.js';

export interface SesQueueFeedProps {
  readonly topic: sns.ITopic;
  /** Topics allowed to send to the queue: the stack's own, then `extraTopicArns`. */
  readonly allowedTopicArns: readonly string[];
  readonly queueName: string;
  readonly deadLetterQueue: sqs.IQueue;
}

export class SesQueueFeed extends Construct {
  readonly queue: sqs.Queue;
  readonly subscription: sns.Subscription;
  private mapping: lambda.EventSourceMapping | undefined;

  constructor(scope: Construct, id: string, props: SesQueueFeedProps) {
    super(scope, id);
    this.queue = new sqs.Queue(this, 'Queue', {
      queueName: props.queueName,
      visibilityTimeout: Duration.seconds(SES_FEED.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(SES_FEED.retentionDays),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
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
  }

  /** Batches of up to SES_FEED.batchSize with partial batch failures, on `fn` (once). */
  attach(fn: lambda.Function): lambda.EventSourceMapping {
    if (this.mapping) throw new Error('SesQueueFeed.attach may be called once');
    this.queue.grantConsumeMessages(fn);
    this.mapping = fn.addEventSourceMapping('SesQueue', {
      eventSourceArn: this.queue.queueArn,
      batchSize: SES_FEED.batchSize,
      maxBatchingWindow: Duration.seconds(SES_FEED.maxBatchingWindowSeconds),
      reportBatchItemFailures: true,
    });
    return this.mapping;
  }
}
