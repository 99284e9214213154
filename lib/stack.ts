/**
 * The AWS deployment: HTTP API -> edge Lambda -> DynamoDB inbox + SQS -> consumer Lambda ->
 * suppression table, a scheduled sweeper that re-sends rows not applied in time, an SNS topic (fed
 * by an SES configuration set) subscribed over HTTPS to the API's SES route, and the alarms that say
 * when events pile up or fail.
 *
 * Names, sizes and timeouts come from definitions.ts; deployment choices from CDK context (config.ts);
 * the routes and secrets from the provider registry, so adding a provider changes nothing here.
 */
import { CfnOutput, Duration, RemovalPolicy, SecretValue, Stack, type StackProps } from 'aws-cdk-lib';
import { HttpApi, HttpMethod, HttpStage, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as ses from 'aws-cdk-lib/aws-ses';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SubscriptionProtocol } from 'aws-cdk-lib/aws-sns';
import { UrlSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import type { ProviderDefinition } from '../lambdas/core/provider.js';
import { PROVIDERS } from '../lambdas/core/providers/index.js';
import { assertInboxOutlivesWindows } from '../lambdas/core/inbox-retention.js';
import { readConfig, type RatchetConfig } from './config.js';
import { RatchetAlarms } from './constructs/alarms.js';
import { HandlerFunction } from './constructs/handler-function.js';
import { CONSUMER, DEFAULT_RESOURCE_PREFIX, EDGE, INBOX_TABLE, QUEUE, resourceNames, SUPPRESSION_TABLE, SWEEPER } from './definitions.js';

/** What the stack needs from a registry entry. */
export type ProviderRoute = Pick<ProviderDefinition, 'name' | 'secretArnVariable'>;

export interface RatchetStackProps extends StackProps {
  /** Defaults to the registry; tests may pass their own. */
  readonly providers?: readonly ProviderRoute[];
  /** Defaults to the project root this file lives in. */
  readonly projectRoot?: string;
}

/** Where a provider's secret lives in Secrets Manager. */
export const secretNameFor = (provider: string, prefix: string = DEFAULT_RESOURCE_PREFIX): string =>
  resourceNames(prefix).secret(provider);

/**
 * SNS's retry policy for the SES route, used for 5xx answers and timeouts (a 4xx, 429 included,
 * counts as delivered). The default is 3 retries 20 s apart, one minute in all; this is the policy
 * the SNS guide gives as its example, about 37 minutes within SNS's one-hour ceiling, long enough to
 * ride out a deploy or a short DynamoDB/SQS outage.
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

const POWERTOOLS_METRICS_NAMESPACE = 'Ratchet';
const SECRETS_CACHE_SECONDS = '60';
const NODE_OPTIONS = '--enable-source-maps';

export class RatchetStack extends Stack {
  readonly config: RatchetConfig;
  readonly inboxTable: dynamodb.Table;
  readonly suppressionTable: dynamodb.Table;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly topic: sns.Topic;
  readonly configurationSet: ses.ConfigurationSet | undefined;
  readonly secrets: ReadonlyMap<string, secretsmanager.Secret>;
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly edge: HandlerFunction;
  readonly consumer: HandlerFunction;
  readonly sweeper: HandlerFunction;
  readonly alarms: RatchetAlarms;
  readonly sesSubscription: sns.Subscription;

  constructor(scope: Construct, id: string, props: RatchetStackProps = {}) {
    super(scope, id, props);
    const config = (this.config = readConfig(this.node));
    const providers = props.providers ?? PROVIDERS;
    const projectRoot = props.projectRoot ?? fileURLToPath(new URL('..', import.meta.url));

    const names = resourceNames(config.resourcePrefix);

    // ---- Storage -------------------------------------------------------------------------------
    // Inbox rows are dedupe/claim records that expire after inboxTtlDays anyway: deleting the stack
    // deletes them. Losing them only means a provider redelivery is admitted again, and every write
    // the consumer makes is a one-way ratchet, so that is harmless.
    this.inboxTable = new dynamodb.Table(this, 'InboxTable', {
      tableName: names.inboxTable,
      partitionKey: { name: INBOX_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: INBOX_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.inboxTable.addGlobalSecondaryIndex({
      indexName: INBOX_TABLE.pendingIndex.name,
      partitionKey: { name: INBOX_TABLE.pendingIndex.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: INBOX_TABLE.pendingIndex.sortKey, type: dynamodb.AttributeType.NUMBER },
      // The sweeper reads keys from the index and re-reads the row itself (GetItem).
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });

    // The suppression list is the product: it outlives the stack and cannot be deleted by accident.
    this.suppressionTable = new dynamodb.Table(this, 'SuppressionTable', {
      tableName: names.suppressionTable,
      partitionKey: { name: SUPPRESSION_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.deadLetterQueue = new sqs.Queue(this, 'DeadLetterQueue', {
      queueName: names.deadLetterQueue,
      retentionPeriod: Duration.days(QUEUE.deadLetterRetentionDays),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    this.queue = new sqs.Queue(this, 'Queue', {
      queueName: names.queue,
      visibilityTimeout: Duration.seconds(QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(QUEUE.retentionDays),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: QUEUE.maxReceiveCount },
    });

    // ---- SES -> SNS ----------------------------------------------------------------------------
    this.topic = new sns.Topic(this, 'SesEventsTopic', { displayName: 'Ratchet SES events' });
    const topicArns = [this.topic.topicArn, ...config.extraTopicArns];

    if (config.createConfigurationSet) {
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
      // No configuration set here: the operator wires SES themselves (identity notifications or their
      // own configuration set), so allow SES in this account and region, and nothing else.
      this.topic.addToResourcePolicy(
        new iam.PolicyStatement({
          sid: 'AllowSesPublishFromThisAccount',
          principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
          actions: ['sns:Publish'],
          resources: [this.topic.topicArn],
          conditions: {
            StringEquals: { 'aws:SourceAccount': this.account },
            ArnLike: { 'aws:SourceArn': `arn:${this.partition}:ses:${this.region}:${this.account}:*` },
          },
        }),
      );
    }

    // ---- Secrets -------------------------------------------------------------------------------
    // `[]` means "not configured": the edge builds no provider from it and the route answers 404
    // until an operator writes real keys (`aws secretsmanager put-secret-value`). CloudFormation never
    // writes the placeholder again, since the template value does not change.
    const secrets = new Map<string, secretsmanager.Secret>();
    for (const provider of providers) {
      if (!provider.secretArnVariable) continue;
      secrets.set(
        provider.name,
        new secretsmanager.Secret(this, `Secret${pascal(provider.name)}`, {
          secretName: secretNameFor(provider.name, config.resourcePrefix),
          description: `Ratchet ${provider.name} webhook credentials: a JSON array of keys, every one of which verifies`,
          secretStringValue: SecretValue.unsafePlainText('[]'),
          // Keys an operator wrote by hand survive a stack deletion or a secret replacement.
          removalPolicy: RemovalPolicy.RETAIN,
        }),
      );
    }
    this.secrets = secrets;

    // ---- Functions -----------------------------------------------------------------------------
    const powertools = (service: string) => ({
      POWERTOOLS_SERVICE_NAME: service,
      POWERTOOLS_METRICS_NAMESPACE,
      NODE_OPTIONS,
    });

    const edgeEnvironment: Record<string, string> = {
      INBOX_TABLE: this.inboxTable.tableName,
      QUEUE_URL: this.queue.queueUrl,
      SNS_TOPIC_ARNS: topicArns.join(','),
      INBOX_TTL_DAYS: String(config.inboxTtlDays),
      // Stamped on each new row as its first re-send time, which the sweeper's backoff starts from.
      SWEEP_AFTER_SECONDS: String(config.sweepAfterSeconds),
      SECRETS_CACHE_SECONDS,
      ...powertools('ratchet-edge'),
    };
    if (config.postmarkAllowedIps !== undefined) edgeEnvironment.POSTMARK_ALLOWED_IPS = config.postmarkAllowedIps;
    assertInboxOutlivesWindows(edgeEnvironment, config.inboxTtlDays); // the edge's windows vs the inbox TTL
    for (const provider of providers) {
      const secret = secrets.get(provider.name);
      if (provider.secretArnVariable && secret) edgeEnvironment[provider.secretArnVariable] = secret.secretArn;
    }

    this.edge = new HandlerFunction(this, 'Edge', {
      projectRoot,
      entry: 'lambdas/edge.ts',
      description: 'Ratchet edge: authenticates provider webhooks, stores them in the inbox and enqueues them',
      timeoutSeconds: EDGE.timeoutSeconds,
      memoryMb: EDGE.memoryMb,
      environment: edgeEnvironment,
      logRetention: config.logRetention,
    });
    // Put (admission, nonce claims, the control ledger) and Get (a duplicate's status): the edge never updates a row.
    allow(this.edge, ['dynamodb:PutItem', 'dynamodb:GetItem'], [this.inboxTable.tableArn]);
    allow(this.edge, ['sqs:SendMessage'], [this.queue.queueArn]);
    allow(this.edge, ['sns:ConfirmSubscription'], topicArns);
    if (secrets.size > 0) {
      allow(this.edge, ['secretsmanager:GetSecretValue'], [...secrets.values()].map((s) => s.secretArn));
    }

    const consumerEnvironment: Record<string, string> = {
      INBOX_TABLE: this.inboxTable.tableName,
      SUPPRESSION_TABLE: this.suppressionTable.tableName,
      ...powertools('ratchet-consumer'),
    };
    if (config.softBounceLimit !== undefined) consumerEnvironment.SOFT_BOUNCE_LIMIT = String(config.softBounceLimit);
    if (config.softBounceWindowDays !== undefined) {
      consumerEnvironment.SOFT_BOUNCE_WINDOW_DAYS = String(config.softBounceWindowDays);
    }
    this.consumer = new HandlerFunction(this, 'Consumer', {
      projectRoot,
      entry: 'lambdas/consumer.ts',
      description: 'Ratchet consumer: applies queued events to the suppression list',
      timeoutSeconds: CONSUMER.timeoutSeconds,
      memoryMb: CONSUMER.memoryMb,
      environment: consumerEnvironment,
      logRetention: config.logRetention,
    });
    allow(this.consumer, ['dynamodb:GetItem', 'dynamodb:PutItem'], [this.suppressionTable.tableArn]);
    allow(this.consumer, ['dynamodb:UpdateItem'], [this.inboxTable.tableArn]);
    // Grants the queue's consume actions (Receive/Delete/ChangeMessageVisibility/GetQueueAttributes/GetQueueUrl).
    this.consumer.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: CONSUMER.batchSize,
        maxBatchingWindow: Duration.seconds(CONSUMER.maxBatchingWindowSeconds),
        reportBatchItemFailures: true,
        maxConcurrency: CONSUMER.maxConcurrency,
      }),
    );

    this.sweeper = new HandlerFunction(this, 'Sweeper', {
      projectRoot,
      entry: 'lambdas/sweeper.ts',
      description: 'Ratchet sweeper: re-enqueues inbox rows not applied in time',
      timeoutSeconds: SWEEPER.timeoutSeconds,
      memoryMb: SWEEPER.memoryMb,
      environment: {
        INBOX_TABLE: this.inboxTable.tableName,
        QUEUE_URL: this.queue.queueUrl,
        SWEEP_AFTER_SECONDS: String(config.sweepAfterSeconds),
        ...powertools('ratchet-sweeper'),
      },
      logRetention: config.logRetention,
    });
    allow(this.sweeper, ['dynamodb:Query'], [`${this.inboxTable.tableArn}/index/${INBOX_TABLE.pendingIndex.name}`]);
    allow(this.sweeper, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [this.inboxTable.tableArn]);
    allow(this.sweeper, ['sqs:SendMessage'], [this.queue.queueArn]);
    new events.Rule(this, 'SweepSchedule', {
      description: 'Runs the Ratchet sweeper',
      schedule: events.Schedule.rate(Duration.minutes(SWEEPER.scheduleMinutes)),
      targets: [new targets.LambdaFunction(this.sweeper.function)],
    });

    // ---- HTTP API ------------------------------------------------------------------------------
    // HttpApi cannot throttle the stage it creates itself, so the $default stage is explicit.
    this.api = new HttpApi(this, 'Api', {
      description: 'Ratchet webhook receiver',
      createDefaultStage: false,
    });
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: { rateLimit: config.throttleRateLimit, burstLimit: config.throttleBurstLimit },
    });
    const routes = this.api.addRoutes({
      path: '/webhooks/{provider}',
      methods: [HttpMethod.POST],
      integration: new HttpLambdaIntegration('EdgeIntegration', this.edge.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    });
    const webhookUrl = (provider: string) => `${this.stage.url}webhooks/${provider}`;

    // SNS confirms the subscription by POSTing to the route the moment it is created, and counts a
    // 404 as delivered (no retry): the route, its Lambda permission and the stage must exist first.
    // It also counts the stage's 429 as delivered, so it paces itself below the stage's rate limit.
    this.sesSubscription = this.topic.addSubscription(
      new UrlSubscription(webhookUrl('ses'), {
        protocol: SubscriptionProtocol.HTTPS,
        deliveryPolicy: {
          healthyRetryPolicy: SES_SUBSCRIPTION_RETRY,
          throttlePolicy: { maxReceivesPerSecond: config.snsMaxReceivesPerSecond },
        },
      }),
    );
    this.sesSubscription.node.addDependency(this.stage, ...routes);

    // ---- Alarms --------------------------------------------------------------------------------
    this.alarms = new RatchetAlarms(this, 'Alarms', {
      api: this.api,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      functions: { edge: this.edge.function, consumer: this.consumer.function, sweeper: this.sweeper.function },
      email: config.alarmEmail,
    });

    // ---- Outputs -------------------------------------------------------------------------------
    new CfnOutput(this, 'ApiUrl', { value: this.stage.url, description: 'Base URL of the webhook API' });
    for (const provider of providers) {
      new CfnOutput(this, `WebhookUrl${pascal(provider.name)}`, {
        value: webhookUrl(provider.name),
        description: `Webhook URL for ${provider.name}`,
      });
    }
    for (const [name, secret] of secrets) {
      new CfnOutput(this, `SecretArn${pascal(name)}`, {
        value: secret.secretArn,
        description: `Secrets Manager secret holding the ${name} keys (JSON array)`,
      });
    }
    new CfnOutput(this, 'InboxTableName', { value: this.inboxTable.tableName });
    new CfnOutput(this, 'SuppressionTableName', {
      value: this.suppressionTable.tableName,
      description: 'The suppression list sending code reads',
    });
    new CfnOutput(this, 'QueueUrl', { value: this.queue.queueUrl });
    new CfnOutput(this, 'DeadLetterQueueUrl', { value: this.deadLetterQueue.queueUrl });
    new CfnOutput(this, 'SesTopicArn', { value: this.topic.topicArn });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.alarms.topic.topicArn,
      description: 'Subscribe here to hear about DLQ messages, a stuck consumer, sustained 5xx and Lambda crashes',
    });
    if (this.configurationSet) {
      new CfnOutput(this, 'ConfigurationSetName', {
        value: this.configurationSet.configurationSetName,
        description: 'Send with this SES configuration set to have its events reach Ratchet',
      });
    }
  }
}

function allow(target: HandlerFunction, actions: string[], resources: string[]): void {
  target.role.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources }));
}

/** `standard-webhooks` -> `StandardWebhooks`, for construct and output ids. */
export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
