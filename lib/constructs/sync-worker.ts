/**
 * Sync on AWS, present only when context `syncProviders` is set: the sync queue and its dead letters,
 * the worker (SQS event source, ReportBatchItemFailures, at most SYNC_WORKER.maxConcurrency copies),
 * the sweeper on a one-minute EventBridge schedule, the sparse `sync-due` index on the suppression
 * table, one Secrets Manager secret per configured provider other than SES (`<prefix>/sync/<provider>`),
 * an alarm on the dead letters and one on each function's crashes, and a dashboard row of `SyncPushed` / `SyncFailed` by provider.
 * Context `syncRates`/`syncConcurrency` reach the worker and the sweeper as each copy's share (lib/sync-limits.ts),
 * `syncRetrySeconds` the worker as SYNC_RETRY_SECONDS.
 * IAM is exact: the SES suppression actions are on the worker's role and nowhere else.
 */
import { Duration, RemovalPolicy, SecretValue, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { SYNC_ROW_PREFIX } from '../../lambdas/adapters/dynamodb-sync-providers.js';
import { SYNC_INDEX } from '../../lambdas/adapters/suppression-sync-fields.js';
import { SYNC_QUEUE_VARIABLES } from '../../lambdas/adapters/wiring/sync-fast-path.js';
import { syncSecretArnVariable } from '../../lambdas/adapters/wiring/sync-secrets.js';
import { DEFAULT_RETRY_HORIZON_SECONDS, SYNC_VARIABLES } from '../../lambdas/core/sync/settings.js';
import type { SyncProviderName } from '../../lambdas/core/sync/target.js';
import type { RatchetConfig } from '../config.js';
import type { SyncContext } from '../sync-config.js';
import { SYNC_QUEUE, SYNC_SWEEPER, SYNC_WORKER, syncResourceNames } from '../sync-definitions.js';
import type { SyncLimits } from '../sync-limits.js';
import type { RatchetAlarms } from './alarms.js';
import { HandlerFunction } from './handler-function.js';
import { ratchetMetric, SYNC_FAST_PATH_METRICS } from './metric-catalog.js';
import { pascal } from './provider-secrets.js';
import { secureQueue } from './secure-queue.js';
import { addSyncIndex } from './sync-index.js';
import { SYNC_NAG_ACKNOWLEDGEMENTS } from './sync-worker-nag.js';
import { allow, type RatchetTables } from './tables.js';

/** Exactly these, and only on the worker's role (the account suppression list has no resource ARNs). */
export const SES_SYNC_ACTIONS = [
  'ses:PutSuppressedDestination',
  'ses:DeleteSuppressedDestination',
  'ses:GetSuppressedDestination',
  'ses:ListSuppressedDestinations',
] as const;

export const SYNC_METRIC_NAMES = ['SyncPushed', 'SyncFailed'] as const;

/**
 * GetItem and UpdateItem on the inbox table's `sync#<provider>` rows only: the inbox also holds every
 * event's dedup row, which the sync side has no business touching (dynamodb:LeadingKeys on the key).
 */
export function allowSyncRows(grantee: iam.IGrantable, inboxTableArn: string): void {
  grantee.grantPrincipal.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:GetItem', 'dynamodb:UpdateItem'],
      resources: [inboxTableArn],
      conditions: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': [`${SYNC_ROW_PREFIX}*`] } },
    }),
  );
}

export interface SyncWorkerProps {
  readonly config: RatchetConfig;
  readonly sync: SyncContext;
  readonly tables: RatchetTables;
  readonly projectRoot: string;
  /** Gets SYNC_PROVIDERS and SYNC_QUEUE_URL, and SendMessage on the sync queue (the fast path). */
  readonly consumer: HandlerFunction;
  readonly alarms: RatchetAlarms;
  readonly dashboard: cloudwatch.Dashboard;
}

export class SyncWorker extends Construct {
  /** The providers this stack pushes to (stack output SyncProviders: SYNC_PROVIDERS for the CLI). */
  readonly providers: readonly SyncProviderName[];
  /** Each copy's share of `syncRates`/`syncConcurrency`, and the stack's total (outputs SyncRates, SyncConcurrency). */
  readonly limits: SyncLimits;
  /** The worker's retry horizon, `syncRetrySeconds` or the default (output SyncRetrySeconds). */
  readonly retrySeconds: number;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly worker: HandlerFunction;
  readonly sweeper: HandlerFunction;
  readonly secrets: ReadonlyMap<SyncProviderName, secretsmanager.ISecret>;
  readonly deadLetterAlarm: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: SyncWorkerProps) {
    super(scope, id);
    const { config, sync, tables } = props;
    this.providers = sync.providers;
    this.limits = sync.limits;
    this.retrySeconds = sync.retrySeconds ?? DEFAULT_RETRY_HORIZON_SECONDS;
    const names = syncResourceNames(config.resourcePrefix);
    this.deadLetterQueue = secureQueue(this, 'DeadLetters', {
      queueName: names.deadLetterQueue,
      retentionPeriod: Duration.days(SYNC_QUEUE.retentionDays),
    });
    this.queue = secureQueue(this, 'Queue', {
      queueName: names.queue,
      visibilityTimeout: Duration.seconds(SYNC_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(SYNC_QUEUE.retentionDays),
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: SYNC_QUEUE.maxReceiveCount },
    });

    // The sweeper's sparse index (a retained table imported by name keeps its own: synth warns).
    addSyncIndex(this, tables.suppressions);

    const secrets = new Map<SyncProviderName, secretsmanager.ISecret>();
    for (const provider of sync.providers) {
      if (provider === 'ses') continue;
      // Retained with a fixed name like the webhook secrets: after `cdk destroy`, `reuseRetained` uses it again.
      if (config.reuseRetained) {
        secrets.set(
          provider,
          secretsmanager.Secret.fromSecretNameV2(this, `Secret${pascal(provider)}`, names.secret(provider)),
        );
        continue;
      }
      secrets.set(
        provider,
        new secretsmanager.Secret(this, `Secret${pascal(provider)}`, {
          secretName: names.secret(provider),
          description: `Ratchet sync: the ${provider} API key the worker pushes suppressions with (replace the placeholder)`,
          secretStringValue: SecretValue.unsafePlainText('[]'),
          removalPolicy: RemovalPolicy.RETAIN,
        }),
      );
    }
    this.secrets = secrets;

    const common = {
      SUPPRESSION_TABLE: tables.suppressions.tableName,
      INBOX_TABLE: tables.inbox.tableName,
      SYNC_PROVIDERS: sync.providers.join(','),
      [SYNC_QUEUE_VARIABLES.queueUrl]: this.queue.queueUrl,
      LOG_LEVEL: config.logLevel,
      // Each copy's share (lib/sync-limits.ts); the sweeper sizes its leases and the backfill by the same rates.
      ...sync.limits.variables,
      // The worker plans with them; the sweeper's backfill walks again when they change (core/sync/backfill.ts).
      ...(config.topicAliases ? { TOPIC_ALIASES: config.topicAliases } : {}),
    };
    this.worker = new HandlerFunction(this, 'Worker', {
      projectRoot: props.projectRoot,
      entry: 'lambdas/sync-worker.ts',
      description: 'Ratchet sync worker: pushes suppression changes to the providers',
      timeoutSeconds: SYNC_WORKER.timeoutSeconds,
      memoryMb: SYNC_WORKER.memoryMb,
      environment: {
        ...common,
        [SYNC_QUEUE_VARIABLES.deadLetterUrl]: this.deadLetterQueue.queueUrl,
        // Only the worker dead-letters; unset, it keeps its default.
        ...(sync.retrySeconds !== undefined ? { [SYNC_VARIABLES.retryHorizonSeconds]: String(sync.retrySeconds) } : {}),
        ...(sync.postmarkStreams ? { POSTMARK_STREAMS: sync.postmarkStreams.join(',') } : {}),
        ...(sync.mailgunDomains ? { MAILGUN_DOMAINS: sync.mailgunDomains.join(',') } : {}),
        ...Object.fromEntries(
          [...secrets].map(([provider, secret]) => [syncSecretArnVariable(provider), secret.secretArn]),
        ),
      },
      logRetention: config.logRetention,
    });
    const worker = this.worker.role;
    // BatchGetItem: a batch's records in one read (adapters/dynamodb-suppression-batch-read.ts).
    allow(worker, ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:UpdateItem'], [tables.suppressions.tableArn]);
    // The provider rows (`sync#<provider>`: the shared 429 pause, the last success) and nothing else of the inbox.
    allowSyncRows(worker, tables.inbox.tableArn);
    allow(worker, ['sqs:ChangeMessageVisibility'], [this.queue.queueArn]);
    // The dead letters, and the sync queue: a wait (a 429, the shared pause) is sent again as a fresh, delayed message.
    allow(worker, ['sqs:SendMessage'], [this.deadLetterQueue.queueArn, this.queue.queueArn]);
    // An imported secret's ARN lacks the random suffix Secrets Manager appends: grant the name and any suffix.
    const secretArns = [...secrets.values()].map((s) => (config.reuseRetained ? `${s.secretArn}-??????` : s.secretArn));
    if (secrets.size > 0) allow(worker, ['secretsmanager:GetSecretValue'], secretArns);
    if (sync.providers.includes('ses')) allow(worker, [...SES_SYNC_ACTIONS], ['*']);
    this.worker.function.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: SYNC_WORKER.batchSize,
        maxBatchingWindow: Duration.seconds(SYNC_WORKER.maxBatchingWindowSeconds),
        reportBatchItemFailures: true,
        maxConcurrency: SYNC_WORKER.maxConcurrency,
      }),
    );

    this.sweeper = new HandlerFunction(this, 'Sweeper', {
      projectRoot: props.projectRoot,
      entry: 'lambdas/sync-sweeper.ts',
      description: 'Ratchet sync sweeper: re-sends pending changes whose message was lost',
      timeoutSeconds: SYNC_SWEEPER.timeoutSeconds,
      memoryMb: SYNC_SWEEPER.memoryMb,
      // Scheduled: nothing else bounds it. A sweep that overruns a minute delays the next, retried.
      reservedConcurrency: SYNC_SWEEPER.reservedConcurrency,
      environment: common,
      logRetention: config.logRetention,
    });
    allow(this.sweeper.role, ['dynamodb:Query'], [`${tables.suppressions.tableArn}/index/${SYNC_INDEX.name}`]);
    // UpdateItem: the lease and the backfill's marker. Scan: the backfill walks the table itself, page by
    // page (no index lists every record), never the sync-due index it may be waiting for.
    allow(this.sweeper.role, ['dynamodb:UpdateItem', 'dynamodb:Scan'], [tables.suppressions.tableArn]);
    // The backfill checkpoint lives in the provider's `sync#<provider>` row, and the providers the sweeper
    // last ran with in `sync#configured`.
    allowSyncRows(this.sweeper.role, tables.inbox.tableArn);
    // GetQueueAttributes: the depth that sizes the lease and the send budget.
    allow(this.sweeper.role, ['sqs:SendMessage', 'sqs:GetQueueAttributes'], [this.queue.queueArn]);
    const schedule = new events.Rule(this, 'SweepSchedule', {
      description: 'Ratchet sync sweeper, every minute',
      schedule: events.Schedule.rate(Duration.minutes(SYNC_SWEEPER.scheduleMinutes)),
      targets: [new targets.LambdaFunction(this.sweeper.function)],
    });

    props.consumer.function.addEnvironment('SYNC_PROVIDERS', sync.providers.join(','));
    props.consumer.function.addEnvironment(SYNC_QUEUE_VARIABLES.queueUrl, this.queue.queueUrl);
    allow(props.consumer.role, ['sqs:SendMessage'], [this.queue.queueArn]);

    this.deadLetterAlarm = props.alarms.add('SyncDeadLetters', {
      alarmDescription: `A suppression change could not be pushed to a provider for ${horizon(this.retrySeconds)} (or was refused): fix the cause, then \`ratchet sync retry\`.`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: Duration.minutes(5),
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
    });
    // A sweeper that throws every minute stops every backfill and every re-send of a lost message; a
    // worker that crashes or times out only reaches the dead letters after the redrive policy's receives.
    props.alarms.addFunctionErrors('syncWorker', this.worker.function);
    props.alarms.addFunctionErrors('syncSweeper', this.sweeper.function);

    const ack = (scope: Construct, acks: ReadonlyArray<readonly [string, string]>) =>
      Validations.of(scope).acknowledge(...acks.map(([id, reason]) => ({ id, reason })));
    for (const secret of secrets.values()) ack(secret, SYNC_NAG_ACKNOWLEDGEMENTS.secrets);
    ack(this.deadLetterQueue, SYNC_NAG_ACKNOWLEDGEMENTS.deadLetters);
    if (sync.providers.includes('ses')) ack(this.worker.role, SYNC_NAG_ACKNOWLEDGEMENTS.sesActions);
    for (const handler of [this.worker, this.sweeper])
      ack(handler.function.node.defaultChild as Construct, SYNC_NAG_ACKNOWLEDGEMENTS.functions);
    // The event source mapping is a child of the worker function.
    ack(this.worker.function, SYNC_NAG_ACKNOWLEDGEMENTS.eventSource);
    ack(schedule, SYNC_NAG_ACKNOWLEDGEMENTS.schedule);

    const metric = (name: string, provider: string) =>
      new cloudwatch.Metric({
        namespace: 'Ratchet',
        metricName: name,
        dimensionsMap: { service: 'ratchet-sync', provider },
        statistic: 'Sum',
        period: Duration.minutes(5),
        label: `${provider} ${name}`,
      });
    props.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Sync: pushed by provider',
        left: sync.providers.map((p) => metric('SyncPushed', p)),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Sync: failed (dead-lettered) by provider',
        left: sync.providers.map((p) => metric('SyncFailed', p)),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        // Sends the consumer could not make: each waits for the next sweep instead.
        title: 'Sync: fast path failed (consumer) by provider',
        left: sync.providers.map((p) =>
          ratchetMetric('consumer', SYNC_FAST_PATH_METRICS.failed, p, {
            period: Duration.minutes(5),
            label: `${p} ${SYNC_FAST_PATH_METRICS.failed}`,
          }),
        ),
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Sync: queue and dead letters',
        left: [
          this.queue.metricApproximateNumberOfMessagesVisible({ label: 'sync queue' }),
          this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'sync dead letters' }),
        ],
        width: 8,
      }),
    );
  }
}

/** The retry horizon in words, for the alarm's description: `an hour`, `15 min`, `90 s`. */
function horizon(seconds: number): string {
  if (seconds === 3600) return 'an hour';
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  return seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;
}
