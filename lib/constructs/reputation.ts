/**
 * Reputation guardrails (docs/reputation.md): the `<prefix>-reputation` table, the counter that fills it
 * from the inbox table's stream (reputation-counter.ts), the evaluator on a 5-minute schedule (reserved
 * concurrency 1), the `<prefix>-reputation` SNS topic it announces each change of state on, an alarm on
 * `SendersInWarn`, one on `SendersInBreach` and one on the counter's on-failure queue, and a dashboard row.
 *
 * Roles, least privilege: the counter may read the inbox stream and `GetItem`/`UpdateItem` the table;
 * the evaluator may `Query` and `UpdateItem` it and `Publish` to its one topic, nothing else. The edge
 * code has no access to the table.
 */
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { Construct, type IConstruct } from 'constructs';
import { RUNTIME_VARIABLE as V } from '../../lambdas/adapters/environment.js';
import { REPUTATION_SETTINGS, thresholdsFromSettings } from '../../lambdas/core/reputation/settings.js';
import { REPUTATION, REPUTATION_TABLE } from '../definitions.js';
import type { RatchetAlarms } from './alarms.js';
import { commonEnvironment } from './environments.js';
import { HandlerFunction } from './handler-function.js';
import { METRIC_NAMESPACE, REPUTATION_METRICS, SERVICE_DIMENSION, SERVICES } from './metric-catalog.js';
import type { RatchetConfig } from './ratchet-props.js';
import { ReputationCounter } from './reputation-counter.js';
import { allow } from './tables.js';

export interface RatchetReputationProps {
  readonly tableName: string;
  /** The inbox table, with its stream: every new row is counted from it. */
  readonly inbox: dynamodb.Table;
  /** The counter's on-failure queue. */
  readonly failureQueueName: string;
  readonly topicName: string;
  readonly projectRoot: string;
  readonly logLevel: RatchetConfig['logLevel'];
  readonly logRetention: logs.RetentionDays;
  /** The thresholds' variables (REPUTATION_SETTINGS), e.g. from CDK context; checked at synth. */
  readonly settings?: Readonly<Record<string, string>>;
}

export const REPUTATION_NAG_ACKNOWLEDGEMENTS = {
  table: [
    [
      'AwsSolutions-DDB3',
      'Hourly counters that expire after 8 days, rebuilt by the traffic itself; point-in-time recovery would cost more than what it restores is worth.',
    ],
  ],
  schedule: [
    [
      'Serverless-EventBusDLQ',
      'A missed run is made up by the next one 5 minutes later: the evaluator reads the counters afresh each time.',
    ],
  ],
  functions: [
    ['AwsSolutions-L1', 'Pinned to nodejs22.x, the runtime the handlers are built and tested for.'],
    ['Serverless-LambdaLatestVersion', 'Pinned to nodejs22.x, the runtime the handlers are built and tested for.'],
    [
      'Serverless-LambdaDLQ',
      'Invoked by the schedule; a failed run is repeated by the next one 5 minutes later, and its errors alarm.',
    ],
    [
      'Serverless-LambdaTracing',
      'X-Ray adds cost per request; the log lines and EMF metrics cover what an operator needs.',
    ],
  ],
} as const;

export class RatchetReputation extends Construct {
  readonly table: dynamodb.Table;
  readonly evaluator: HandlerFunction;
  readonly counter: ReputationCounter;
  readonly topic: sns.Topic;
  readonly schedule: events.Rule;
  readonly warnAlarm?: cloudwatch.Alarm;
  readonly breachAlarm?: cloudwatch.Alarm;
  readonly discardedAlarm?: cloudwatch.Alarm;

  constructor(scope: Construct, id: string, props: RatchetReputationProps) {
    super(scope, id);
    const settings = { ...props.settings };
    thresholdsFromSettings(settings); // a bad threshold fails the synth, naming the variable
    this.table = new dynamodb.Table(this, 'Table', {
      tableName: props.tableName,
      // Counters: `c#<provider>#<sender>`, written once per stream batch and shard (never per event), so
      // one sender at 2,000 events/s puts a handful of WCU/s on it, under DynamoDB's 1,000 WCU/s a
      // partition (REPUTATION_TABLE's comment; npm run capacity prints the figure).
      partitionKey: { name: REPUTATION_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: REPUTATION_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: REPUTATION_TABLE.ttlAttribute,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.topic = new sns.Topic(this, 'Topic', {
      topicName: props.topicName,
      displayName: 'Ratchet sender reputation',
      enforceSSL: true,
    });
    this.evaluator = new HandlerFunction(this, 'Evaluator', {
      projectRoot: props.projectRoot,
      entry: 'lambdas/reputation.ts',
      description: 'Ratchet reputation evaluator: rates and states per sender, a notification per change',
      timeoutSeconds: REPUTATION.timeoutSeconds,
      memoryMb: REPUTATION.memoryMb,
      environment: {
        [V.reputationTable]: this.table.tableName,
        [V.reputationTopicArn]: this.topic.topicArn,
        ...settings,
        ...commonEnvironment('reputation', { logLevel: props.logLevel }),
      },
      logRetention: props.logRetention,
    });
    // One evaluator at a time: it compares and stores states, and two would race to announce a change.
    (this.evaluator.function.node.defaultChild as CfnFunction).reservedConcurrentExecutions =
      REPUTATION.reservedConcurrency;
    allow(this.evaluator.role, ['dynamodb:Query', 'dynamodb:UpdateItem'], [this.table.tableArn]);
    allow(this.evaluator.role, ['sns:Publish'], [this.topic.topicArn]);
    this.schedule = new events.Rule(this, 'Schedule', {
      description: `Ratchet reputation evaluator, every ${REPUTATION.evaluateEveryMinutes} minutes`,
      schedule: events.Schedule.rate(Duration.minutes(REPUTATION.evaluateEveryMinutes)),
      targets: [new targets.LambdaFunction(this.evaluator.function, { retryAttempts: 0 })],
    });
    this.counter = new ReputationCounter(this, 'Counter', {
      inbox: props.inbox,
      reputationTable: this.table,
      failureQueueName: props.failureQueueName,
      projectRoot: props.projectRoot,
      environment: {
        [V.reputationTable]: this.table.tableName,
        ...commonEnvironment('reputationCounter', { logLevel: props.logLevel }),
      },
      logRetention: props.logRetention,
    });
    const ack = (target: IConstruct, acks: ReadonlyArray<readonly [string, string]>) =>
      Validations.of(target).acknowledge(...acks.map(([rule, reason]) => ({ id: rule, reason })));
    ack(this.table, REPUTATION_NAG_ACKNOWLEDGEMENTS.table);
    ack(this.schedule, REPUTATION_NAG_ACKNOWLEDGEMENTS.schedule);
    ack(this.evaluator.function.node.defaultChild!, REPUTATION_NAG_ACKNOWLEDGEMENTS.functions);
  }

  /** What `ratchet reputation` and the client's `senderStatus` need: Query. */
  grantRead(grantee: iam.IGrantable): void {
    allow(grantee, ['dynamodb:Query'], [this.table.tableArn]);
  }

  /** One of the two gauges the evaluator publishes (the `service` dimension only). */
  metric(name: string): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName: name,
      dimensionsMap: { [SERVICE_DIMENSION]: SERVICES.reputation },
      statistic: 'Maximum',
      period: Duration.minutes(REPUTATION.evaluateEveryMinutes),
    });
  }

  /** An alarm on each gauge at >= 1, on the stack's alarm topic; and the dashboard row. */
  addAlarmsAndDashboard(alarms: RatchetAlarms, dashboard: cloudwatch.Dashboard): void {
    const warn = this.metric(REPUTATION_METRICS.warn);
    const breach = this.metric(REPUTATION_METRICS.breach);
    Object.assign(this, {
      warnAlarm: alarms.add('SendersInWarn', {
        alarmDescription: `A sender's 24-hour hard-bounce or complaint rate reached warn: \`ratchet reputation\` names it; the ${this.topic.topicName} topic has the details.`,
        metric: warn,
        threshold: 1,
        evaluationPeriods: 1,
      }),
      breachAlarm: alarms.add('SendersInBreach', {
        alarmDescription:
          'A sender is in breach: providers review or pause accounts near these rates. Clients braking on it refuse its subscription mail until its 24-hour rates fall under warn.',
        metric: breach,
        threshold: 1,
        evaluationPeriods: 1,
      }),
      discardedAlarm: alarms.add('ReputationCountsDiscarded', {
        alarmDescription:
          "The reputation counter gave up on a batch of the inbox stream after its retries: those events are not counted. The queue's messages name the shard and sequence numbers; the counter's log says why.",
        metric: this.counter.failures.metricApproximateNumberOfMessagesVisible({
          period: Duration.minutes(5),
          statistic: 'Maximum',
        }),
        threshold: 1,
        evaluationPeriods: 1,
      }),
    });
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Reputation: senders in warn and in breach',
        left: [warn, breach],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Reputation: evaluator and counter errors, and their duration',
        left: [
          this.evaluator.function.metricErrors({ period: Duration.minutes(5) }),
          this.counter.handler.function.metricErrors({ period: Duration.minutes(5) }),
        ],
        right: [
          this.evaluator.function.metricDuration({ period: Duration.minutes(5), statistic: 'p99' }),
          this.counter.handler.function.metricDuration({ period: Duration.minutes(5), statistic: 'p99' }),
        ],
        width: 12,
      }),
    );
  }
}

/** The thresholds' variables from CDK context (each setting's `contextKey`), as strings. */
export function reputationSettingsFromContext(node: { tryGetContext(key: string): unknown }): Record<string, string> {
  const out: Record<string, string> = {};
  for (const { variable, contextKey } of REPUTATION_SETTINGS) {
    const value = contextKey === undefined ? undefined : node.tryGetContext(contextKey);
    if (value !== undefined && value !== null && value !== '') out[variable] = String(value);
  }
  return out;
}
