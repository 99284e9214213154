/**
 * Ratchet as one construct, for your own CDK app:
 *
 *   new Ratchet(this, 'Ratchet', { config: readConfig(this.node) });
 *
 * Front door (HTTP API, or a Lambda Function URL) -> edge Lambda -> DynamoDB inbox + SQS -> consumer
 * Lambda -> suppression table; an SNS topic fed by SES and subscribed over HTTPS to the front door's
 * SES URL, with a dead-letter queue; alarms and a dashboard. Each seam is its own construct with grant
 * methods; this file only wires them together. The provider registry supplies the routes and secrets.
 */
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sns from 'aws-cdk-lib/aws-sns';
import { Construct } from 'constructs';
import { fileURLToPath } from 'node:url';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import type { RatchetConfig } from '../config.js';
import { API, CONSUMER, EDGE, resourceNames } from '../definitions.js';
import { RatchetAlarms, ALARM_PERIOD } from './alarms.js';
import type { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import { RatchetDashboard } from './dashboard.js';
import { acknowledgeNagFindings } from './nag-acknowledgements.js';
import { consumerEnvironment, edgeEnvironment } from './environments.js';
import { EventQueue } from './event-queue.js';
import { type FrontDoor, webhookUrl } from './front-door.js';
import { FunctionUrlFront } from './function-url-front.js';
import { HandlerFunction } from './handler-function.js';
import { isUnsubscribe, ProviderSecrets, type ProviderRoute } from './provider-secrets.js';
import { SesFeed } from './ses-feed.js';
import { addSignalAlarms } from './signal-alarms.js';
import { markTransparent } from './stable-ids.js';
import { RatchetTables, allow } from './tables.js';
import { WebhookApi } from './webhook-api.js';
import { SyncWorker } from './sync-worker.js';
import { readSyncContext } from '../sync-config.js';

export interface RatchetProps {
  readonly config: RatchetConfig;
  /** Defaults to the registry; tests may pass their own. */
  readonly providers?: readonly ProviderRoute[];
  /** Defaults to this package's root (holds package-lock.json and lambdas/). */
  readonly projectRoot?: string;
}

export class Ratchet extends Construct {
  readonly config: RatchetConfig;
  /** Providers with a webhook route (the unsubscribe pseudo-provider has its own routes). */
  readonly providers: readonly ProviderRoute[];
  readonly tables: RatchetTables;
  readonly events: EventQueue;
  readonly secrets: ProviderSecrets;
  readonly ses: SesFeed;
  readonly edge: HandlerFunction;
  readonly consumer: HandlerFunction;
  readonly front: FrontDoor;
  readonly sesSubscription: sns.Subscription;
  readonly consumerEventSource: EventSourceMapping;
  readonly alarms: RatchetAlarms;
  readonly dashboard: RatchetDashboard;
  /** Present only when context `syncProviders` is set. */
  readonly sync?: SyncWorker;

  constructor(scope: Construct, id: string, props: RatchetProps) {
    super(scope, id);
    const config = (this.config = props.config);
    const registry = props.providers ?? PROVIDERS;
    this.providers = registry.filter((p) => !isUnsubscribe(p));
    const projectRoot = props.projectRoot ?? fileURLToPath(new URL('../..', import.meta.url));
    const names = resourceNames(config.resourcePrefix);

    // Seams are left out of logical ids in the shipped stack (stable-ids.ts): their resources keep the
    // ids they had before the split.
    this.tables = seam(new RatchetTables(this, 'Storage', {
      inboxTableName: names.inboxTable,
      suppressionTableName: names.suppressionTable,
      inboxPointInTimeRecovery: config.inboxPointInTimeRecovery,
    }));
    this.events = seam(new EventQueue(this, 'Events', { queueName: names.queue, deadLetterQueueName: names.deadLetterQueue }));
    this.ses = seam(new SesFeed(this, 'SesFeed', {
      createConfigurationSet: config.createConfigurationSet,
      deadLetterQueueName: names.sesDeadLetterQueue,
    }));
    this.secrets = seam(new ProviderSecrets(this, 'Secrets', { providers: registry, secretName: names.secret }));
    const topicArns = this.ses.topicArns(config.extraTopicArns);

    this.edge = new HandlerFunction(this, 'Edge', {
      projectRoot,
      entry: 'lambdas/edge.ts',
      description: 'Ratchet edge: authenticates provider webhooks, stores them in the inbox and enqueues them',
      timeoutSeconds: EDGE.timeoutSeconds,
      memoryMb: EDGE.memoryMb,
      environment: edgeEnvironment(config, {
        inboxTable: this.tables.inbox.tableName,
        queueUrl: this.events.queue.queueUrl,
        topicArns,
        secretArns: this.secrets.environment(),
      }),
      logRetention: config.logRetention,
    });
    this.tables.grantAdmit(this.edge.role);
    this.events.grantSend(this.edge.role);
    allow(this.edge.role, ['sns:ConfirmSubscription'], topicArns);
    this.secrets.grantRead(this.edge.role);

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

    this.front = this.createFrontDoor();

    // SNS confirms the subscription by POSTing to the SES URL the moment it is created, and counts a
    // 404 as delivered (no retry): the front door must be live first.
    this.sesSubscription = this.ses.subscribe({
      url: webhookUrl(this.front, 'ses'),
      maxReceivesPerSecond: config.snsMaxReceivesPerSecond,
      dependsOn: this.front.ready,
    });

    this.alarms = new RatchetAlarms(this, 'Alarms', {
      serverErrors: this.frontServerErrors(),
      queue: this.events.queue,
      deadLetterQueue: this.events.deadLetterQueue,
      functions: { edge: this.edge.function, consumer: this.consumer.function },
      email: config.alarmEmail,
    });
    addSignalAlarms(this.alarms, {
      sesTopic: this.ses.topic,
      sesDeadLetterQueue: this.ses.deadLetterQueue,
      providers: this.providers.map((p) => p.name),
      secretProviders: this.providers.filter((p) => this.secrets.byProvider.has(p.name)).map((p) => p.name),
      rejectedRequestsThreshold: config.rejectedRequestsAlarmThreshold,
      throttled: this.frontThrottled(),
    });

    this.dashboard = new RatchetDashboard(this, 'Dashboard', {
      providers: this.providers.map((p) => p.name),
      queue: this.events.queue,
      deadLetterQueue: this.events.deadLetterQueue,
      sesDeadLetterQueue: this.ses.deadLetterQueue,
      functions: { edge: this.edge.function, consumer: this.consumer.function },
      front: {
        clientErrors: this.frontClientErrors(),
        throttled: this.frontThrottled(),
        serverErrors: this.frontServerErrors(),
      },
    });
    const sync = readSyncContext(this.node);
    if (sync) {
      const deps = { config, sync, tables: this.tables, projectRoot, consumer: this.consumer, alarms: this.alarms, dashboard: this.dashboard.dashboard };
      this.sync = new SyncWorker(this, 'Sync', deps);
    }
    acknowledgeNagFindings(this);
  }

  /** 4xx answered by the front door. */
  private frontClientErrors(): cloudwatch.Metric {
    if (this.front instanceof WebhookApi) return this.front.api.metricClientError({ period: ALARM_PERIOD, statistic: 'Sum' });
    return this.edge.function.metric('Url4xxCount', { period: ALARM_PERIOD, statistic: 'Sum' });
  }

  /** The HTTP API, or the Function URL (context `front`). */
  private createFrontDoor(): FrontDoor {
    const { config } = this;
    if (config.front === 'function-url') {
      return new FunctionUrlFront(this, 'FunctionUrl', {
        edge: this.edge.function,
        reservedConcurrency: config.edgeReservedConcurrency,
      });
    }
    const api = seam(new WebhookApi(this, 'WebhookApi', {
      edge: this.edge.function,
      throttle: { rateLimit: config.throttleRateLimit, burstLimit: config.throttleBurstLimit },
      sesRoute: { rateLimit: config.sesRouteRateLimit, burstLimit: config.sesRouteBurstLimit },
      unsubscribeRoute: { rateLimit: API.unsubscribeRateLimit, burstLimit: API.unsubscribeBurstLimit },
      logRetention: config.logRetention,
    }));
    // Where unsubscribe links point. Not set for the Function URL, where the edge would depend on its
    // own URL (a cycle): there the `UnsubscribeBaseUrl` output is the only source.
    this.edge.function.addEnvironment('UNSUBSCRIBE_BASE_URL', api.baseUrl);
    return api;
  }

  /** 5xx answered by the front door. */
  private frontServerErrors(): cloudwatch.Metric {
    if (this.front instanceof WebhookApi) return this.front.api.metricServerError({ period: ALARM_PERIOD, statistic: 'Sum' });
    return this.edge.function.metric('Url5xxCount', { period: ALARM_PERIOD, statistic: 'Sum' });
  }

  /** 429s: API Gateway's from its access log; the Function URL's are the edge's throttles. */
  frontThrottled(): cloudwatch.Metric {
    if (this.front instanceof WebhookApi) return this.front.metricThrottled({ period: ALARM_PERIOD });
    return this.edge.function.metricThrottles({ period: ALARM_PERIOD, statistic: 'Sum' });
  }
}

function seam<T extends Construct>(construct: T): T {
  markTransparent(construct);
  return construct;
}
