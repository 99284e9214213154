/**
 * The SES side of the stack, whichever way its events reach the edge code: the topic SES publishes to
 * (TLS-only), the configuration set that feeds it (or a topic policy for SES in this account when the
 * operator wires SES themselves), and the SES dead-letter queue `<prefix>-ses-dead-letters`.
 *
 * With `sesFeed=sqs` (the default) the topic feeds a queue (ses-queue-feed.ts) whose redrive target is
 * the dead-letter queue. With `sesFeed=https` the topic is subscribed over HTTPS to the front door's SES
 * URL (`subscribe`): SNS retries only 5xx, timeouts and connection errors, for at most an hour, then
 * moves the message to the dead-letter queue. Either way a dead letter is the JSON envelope SNS signed,
 * and `ratchet ses redrive` replays it through the edge.
 */
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import { UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct, type IDependable } from 'constructs';
import { SES_DEAD_LETTERS } from '../definitions.js';
import { secureQueue } from './secure-queue.js';

/**
 * SNS's retry policy for the SES route, used for 5xx answers and timeouts (a 4xx, 429 included,
 * counts as delivered). The default is 3 retries 20 s apart, one minute in all; this is the policy
 * the SNS guide gives as its example, about 37 minutes within SNS's one-hour ceiling, long enough to
 * ride out a deploy or a short DynamoDB/SQS outage. After it, the message goes to the dead-letter queue.
 */
export const SES_SUBSCRIPTION_RETRY: sns.HealthyRetryPolicy = {
  minDelayTarget: Duration.seconds(1),
  maxDelayTarget: Duration.seconds(60),
  numRetries: 50,
  numNoDelayRetries: 3,
  numMinDelayRetries: 2,
  numMaxDelayRetries: 35,
  backoffFunction: sns.BackoffFunction.EXPONENTIAL,
};

export interface SesFeedProps {
  readonly createConfigurationSet: boolean;
  readonly deadLetterQueueName: string;
}

export interface SesSubscriptionOptions {
  /** The front door's URL for `POST /webhooks/ses`. */
  readonly url: string;
  readonly maxReceivesPerSecond: number;
  /** What must be live before SNS POSTs the SubscriptionConfirmation (it never retries a 404). */
  readonly dependsOn: readonly IDependable[];
}

export class SesFeed extends Construct {
  readonly topic: sns.Topic;
  readonly configurationSet: ses.ConfigurationSet | undefined;
  readonly deadLetterQueue: sqs.Queue;
  private subscriptionResource: sns.Subscription | undefined;

  constructor(scope: Construct, id: string, props: SesFeedProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'SesEventsTopic', { displayName: 'Ratchet SES events', enforceSSL: true });

    if (props.createConfigurationSet) {
      this.configurationSet = new ses.ConfigurationSet(this, 'ConfigurationSet');
      // CDK also adds the topic policy for ses.amazonaws.com, scoped by aws:SourceAccount and this
      // configuration set's ARN.
      this.configurationSet.addEventDestination('ToRatchet', {
        destination: ses.EventDestination.snsTopic(this.topic),
        events: [
          ses.EmailSendingEvent.BOUNCE,
          ses.EmailSendingEvent.COMPLAINT,
          ses.EmailSendingEvent.DELIVERY,
          ses.EmailSendingEvent.SUBSCRIPTION,
        ],
      });
    } else {
      // The operator wires SES themselves (identity notifications or their own configuration set):
      // allow SES in this account and region, and nothing else.
      const stack = this.topic.stack;
      this.topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowSesPublishFromThisAccount',
          principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': stack.account },
            ArnLike: { 'aws:SourceArn': `arn:${stack.partition}:ses:${stack.region}:${stack.account}:*` },
          },
        }),
      );
    }

    // The subscription (either kind) adds the queue policy: sqs:SendMessage for sns.amazonaws.com,
    // only with aws:SourceArn = this topic.
    this.deadLetterQueue = secureQueue(this, 'SesDeadLetterQueue', {
      queueName: props.deadLetterQueueName,
      retentionPeriod: Duration.days(SES_DEAD_LETTERS.retentionDays),
    });
  }

  /** The HTTPS subscription, created only once everything in `dependsOn` is. */
  subscribe(options: SesSubscriptionOptions): sns.Subscription {
    if (this.subscriptionResource) throw new Error('SesFeed.subscribe may be called once');
    this.subscriptionResource = this.topic.addSubscription(
      new UrlSubscription(options.url, {
        protocol: sns.SubscriptionProtocol.HTTPS,
        deadLetterQueue: this.deadLetterQueue,
        deliveryPolicy: {
          healthyRetryPolicy: SES_SUBSCRIPTION_RETRY,
          throttlePolicy: { maxReceivesPerSecond: options.maxReceivesPerSecond },
        },
      }),
    );
    this.subscriptionResource.node.addDependency(...options.dependsOn);
    return this.subscriptionResource;
  }

  /** Topic ARNs the edge accepts: this topic, then any extra ones the operator allows. */
  topicArns(extra: readonly string[]): string[] {
    return [this.topic.topicArn, ...extra];
  }
}
