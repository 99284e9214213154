/**
 * Ratchet as one construct, for your own CDK app (docs/cdk-construct.md):
 *
 *   new Ratchet(this, 'Ratchet');                                  // every default
 *   new Ratchet(this, 'Ratchet', { resourcePrefix: 'acme', front: 'function-url' });
 *
 * Front door (HTTP API, or a Lambda Function URL) -> edge Lambda -> DynamoDB inbox + SQS -> consumer
 * Lambda -> suppression table. SES publishes to an SNS topic that feeds an SQS queue drained by the
 * edge code (`sesFeed=sqs`), or that is subscribed over HTTPS to the front door (`https`). Alarms and
 * a dashboard. Each seam is a small child construct with grant methods; this file wires them together
 * and exposes the parts. The provider registry supplies the routes and secrets.
 */

import { fileURLToPath } from 'node:url';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { EventSourceMapping, IFunction } from 'aws-cdk-lib/aws-lambda';
import type * as ses from 'aws-cdk-lib/aws-ses';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { SES_PROVIDER_NAME } from '../../lambdas/core/providers/ses/index.js';
import type { ConcurrencyPlan } from '../concurrency.js';
import { CONSUMER, EDGE, REPUTATION, resourceNames } from '../definitions.js';
import { resolveSync } from '../sync-config.js';
import { RatchetAlarms } from './alarms.js';
import { assertConcurrencyBudget } from './concurrency-budget.js';
import { createFrontDoor } from './create-front-door.js';
import { RatchetDashboard } from './dashboard.js';
import { consumerEnvironment, edgeEnvironment } from './environments.js';
import { EventQueue } from './event-queue.js';
import { type FrontDoor, webhookUrl } from './front-door.js';
import { frontDoorMetrics } from './front-door-metrics.js';
import { HandlerFunction } from './handler-function.js';
import { acknowledgeNagFindings } from './nag-acknowledgements.js';
import { isUnsubscribe, type ProviderRoute, ProviderSecrets } from './provider-secrets.js';
import { type RatchetConfig, type RatchetProps, resolveRatchetProps } from './ratchet-props.js';
import { RatchetReputation, reputationSettingsFromContext } from './reputation.js';
import { SesFeed } from './ses-feed.js';
import { SesQueueFeed } from './ses-queue-feed.js';
import { addSignalAlarms } from './signal-alarms.js';
import { SyncWorker } from './sync-worker.js';
import { allow, RatchetTables } from './tables.js';
import { WebhookApi } from './webhook-api.js';

export type { RatchetConfig, RatchetProps } from './ratchet-props.js';

export class Ratchet extends Construct {
  /** The props with every default applied. */
  readonly config: RatchetConfig;
  /** Providers with a webhook route (the unsubscribe pseudo-provider has its own routes). */
  readonly providers: readonly ProviderRoute[];

  // The seams, as child constructs.
  readonly tables: RatchetTables;
  readonly events: EventQueue;
  readonly secrets: ProviderSecrets;
  readonly ses: SesFeed;
  /** `sesFeed=sqs` only: the feed queue, its subscription and the feed function. */
  readonly sesQueue: SesQueueFeed | undefined;

  // The parts, directly.
  readonly inboxTable: dynamodb.ITable;
  /** The suppression list sending code reads (retained; imported by name with `reuseRetained`). */
  readonly suppressionTable: dynamodb.ITable;
  /** Between the edge code and the consumer. */
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly sesTopic: sns.ITopic;
  readonly sesDeadLetterQueue: sqs.IQueue;
  /** `sesFeed=sqs` only: the queue the SES topic delivers to. */
  readonly sesFeedQueue: sqs.IQueue | undefined;
  /** Unless `createConfigurationSet` is false. */
  readonly configurationSet: ses.IConfigurationSet | undefined;
  /** The SES topic's subscription: to the feed queue (`sesFeed=sqs`), or to the front door (`https`). */
  readonly sesSubscription: sns.Subscription;
  readonly edge: HandlerFunction;
  readonly consumer: HandlerFunction;
  /** `sesFeed=sqs` only: the edge code on the feed queue. */
  readonly feed: HandlerFunction | undefined;
  readonly consumerEventSource: EventSourceMapping;
  readonly feedEventSource: EventSourceMapping | undefined;
  readonly front: FrontDoor;
  /** The API Gateway front door, unless `front` is `function-url`. */
  readonly webhookApi: WebhookApi | undefined;
  readonly alarms: RatchetAlarms;
  /** Every alarm notifies it: subscribe to it, or set `alarmEmail`. */
  readonly alarmTopic: sns.ITopic;
  readonly dashboard: RatchetDashboard;
  /** Present only when context `syncProviders` is set. */
  readonly sync?: SyncWorker;
  /** Every function's concurrency against `concurrencyBudget` (synth refuses an overrun). */
  readonly concurrency: ConcurrencyPlan;
  /** The reputation table, evaluator, topic, alarms and dashboard row (docs/reputation.md). */
  readonly reputation: RatchetReputation;

  constructor(scope: Construct, id: string, props: RatchetProps = {}) {
    super(scope, id);
    const config = (this.config = resolveRatchetProps(props));
    const registry = props.providers ?? PROVIDERS;
    this.providers = registry.filter((p) => !isUnsubscribe(p));
    const projectRoot = props.projectRoot ?? fileURLToPath(new URL('../..', import.meta.url));
    const names = resourceNames(config.resourcePrefix);

    this.tables = new RatchetTables(this, 'Storage', {
      inboxTableName: names.inboxTable,
      suppressionTableName: names.suppressionTable,
      inboxPointInTimeRecovery: config.inboxPointInTimeRecovery,
      reuseSuppressionTable: config.reuseRetained,
    });
    this.events = new EventQueue(this, 'Events', {
      queueName: names.queue,
      deadLetterQueueName: names.deadLetterQueue,
    });
    this.ses = new SesFeed(this, 'SesFeed', {
      createConfigurationSet: config.createConfigurationSet,
      deadLetterQueueName: names.sesDeadLetterQueue,
    });
    this.secrets = new ProviderSecrets(this, 'Secrets', {
      providers: registry,
      secretName: names.secret,
      reuseRetained: config.reuseRetained,
    });
    const topicArns = this.ses.topicArns(config.extraTopicArns);
    this.reputation = new RatchetReputation(this, 'Reputation', {
      tableName: names.reputationTable,
      failureQueueName: names.reputationFailureQueue,
      inbox: this.tables.inbox,
      topicName: `${config.resourcePrefix}${REPUTATION.topicSuffix}`,
      projectRoot,
      logLevel: config.logLevel,
      logRetention: config.logRetention,
      settings: reputationSettingsFromContext(this.node),
    });

    const edgeEnv = edgeEnvironment(config, {
      inboxTable: this.tables.inbox.tableName,
      queueUrl: this.events.queue.queueUrl,
      topicArns,
      secretArns: this.secrets.environment(),
    });
    this.edge = new HandlerFunction(this, 'Edge', {
      projectRoot,
      entry: 'lambdas/edge.ts',
      description: 'Ratchet edge: authenticates provider webhooks, stores them in the inbox and enqueues them',
      timeoutSeconds: EDGE.timeoutSeconds,
      memoryMb: EDGE.memoryMb,
      environment: edgeEnv,
      logRetention: config.logRetention,
      // Either front door: the edge's share of the concurrency budget.
      reservedConcurrency: config.edgeReservedConcurrency,
    });
    this.grantEdgeCode(this.edge, topicArns);

    if (config.sesFeed === 'sqs') {
      // The feed verifies SES only: the secrets of SES alone (it has none), never the other providers'
      // webhook keys or the unsubscribe key.
      const feedProviders = [SES_PROVIDER_NAME];
      this.sesQueue = new SesQueueFeed(this, 'SesQueue', {
        topic: this.ses.topic,
        allowedTopicArns: topicArns,
        queueName: names.sesQueue,
        deadLetterQueue: this.ses.deadLetterQueue,
        environment: edgeEnvironment(config, {
          inboxTable: this.tables.inbox.tableName,
          queueUrl: this.events.queue.queueUrl,
          topicArns,
          secretArns: this.secrets.environment(feedProviders),
        }),
        projectRoot,
        logRetention: config.logRetention,
      });
      this.grantEdgeCode(this.sesQueue.feed, topicArns, feedProviders);
    }

    this.consumer = new HandlerFunction(this, 'Consumer', {
      projectRoot,
      entry: 'lambdas/consumer.ts',
      description: 'Ratchet consumer: applies queued events to the suppression list',
      timeoutSeconds: CONSUMER.timeoutSeconds,
      memoryMb: CONSUMER.memoryMb,
      environment: consumerEnvironment(config, {
        inboxTable: this.tables.inbox.tableName,
        suppressionTable: this.tables.suppressions.tableName,
      }),
      logRetention: config.logRetention,
    });
    this.tables.grantApply(this.consumer.role);
    this.consumerEventSource = this.events.attachConsumer(this.consumer.function);

    this.front = createFrontDoor(this, config, this.edge, [this.edge, this.sesQueue?.feed]);
    // SNS confirms an HTTPS subscription by POSTing to the SES URL the moment it is created, and counts
    // a 404 as delivered (no retry): the front door must be live first.
    this.sesSubscription =
      this.sesQueue?.subscription ??
      this.ses.subscribe({
        url: webhookUrl(this.front, 'ses'),
        maxReceivesPerSecond: config.snsMaxReceivesPerSecond,
        dependsOn: this.front.ready,
      });

    this.inboxTable = this.tables.inbox;
    this.suppressionTable = this.tables.suppressions;
    this.queue = this.events.queue;
    this.deadLetterQueue = this.events.deadLetterQueue;
    this.sesTopic = this.ses.topic;
    this.sesDeadLetterQueue = this.ses.deadLetterQueue;
    this.configurationSet = this.ses.configurationSet;
    this.sesFeedQueue = this.sesQueue?.queue;
    this.feed = this.sesQueue?.feed;
    this.feedEventSource = this.sesQueue?.eventSource;
    this.webhookApi = this.front instanceof WebhookApi ? this.front : undefined;

    const metrics = frontDoorMetrics(this.front, this.edge.function);
    this.alarms = new RatchetAlarms(this, 'Alarms', {
      serverErrors: metrics.serverErrors,
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      functions: this.functions(),
      email: config.alarmEmail,
    });
    this.alarmTopic = this.alarms.topic;
    addSignalAlarms(this.alarms, {
      sesTopic: this.sesTopic,
      sesDeadLetterQueue: this.sesDeadLetterQueue,
      sesFeedQueue: this.sesFeedQueue,
      providers: this.providers.map((p) => p.name),
      secretProviders: this.providers.filter((p) => this.secrets.byProvider.has(p.name)).map((p) => p.name),
      rejectedRequestsThreshold: config.rejectedRequestsAlarmThreshold,
      throttled: metrics.throttled,
    });
    this.dashboard = new RatchetDashboard(this, 'Dashboard', {
      providers: this.providers.map((p) => p.name),
      queue: this.queue,
      deadLetterQueue: this.deadLetterQueue,
      sesDeadLetterQueue: this.sesDeadLetterQueue,
      sesFeedQueue: this.sesFeedQueue,
      functions: this.functions(),
      front: metrics,
    });
    this.reputation.addAlarmsAndDashboard(this.alarms, this.dashboard.dashboard);
    const sync = resolveSync(props);
    if (sync) {
      const deps = {
        config,
        sync,
        tables: this.tables,
        projectRoot,
        consumer: this.consumer,
        alarms: this.alarms,
        dashboard: this.dashboard.dashboard,
      };
      this.sync = new SyncWorker(this, 'Sync', deps);
    }
    acknowledgeNagFindings(this);
    // Last, so every function built above is counted (lib/concurrency.ts).
    this.concurrency = assertConcurrencyBudget(this, config.concurrencyBudget);
  }

  /** Read the suppression list, as sending code does (`isSuppressed`): GetItem and BatchGetItem, nothing else. */
  grantReadSuppressions(grantee: iam.IGrantable): void {
    allow(grantee, ['dynamodb:GetItem', 'dynamodb:BatchGetItem'], [this.suppressionTable.tableArn]);
  }

  /** Send events to the queue between the edge code and the consumer. */
  grantSendEvents(grantee: iam.IGrantable): void {
    this.events.grantSend(grantee);
  }

  /**
   * What the edge code needs wherever it runs: admission, the event queue, SNS confirmations, and the
   * secrets of the providers it serves (every one, unless `providers` names them).
   */
  private grantEdgeCode(handler: HandlerFunction, topicArns: string[], providers?: readonly string[]): void {
    this.tables.grantAdmit(handler.role);
    this.events.grantSend(handler.role);
    allow(handler.role, ['sns:ConfirmSubscription'], topicArns);
    this.secrets.grantRead(handler.role, providers);
  }

  /** The functions by role, for the alarms and the dashboard. */
  private functions(): Record<string, IFunction> {
    const all: Record<string, IFunction> = {
      edge: this.edge.function,
      consumer: this.consumer.function,
      reputation: this.reputation.evaluator.function,
    };
    if (this.sesQueue) all.feed = this.sesQueue.feed.function;
    return all;
  }
}
