/**
 * The alarms behind "no event is lost": each watches a place where events can pile up, or fail,
 * without anyone seeing it. They all notify one SNS topic. Subscribe to it yourself, or pass context
 * `alarmEmail` to subscribe an address at deploy time.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ALARMS } from '../definitions.js';

export interface RatchetAlarmsProps {
  /** 5xx answered by the front door (API Gateway `5xx`, or the Function URL's `Url5xxCount`). */
  serverErrors: cloudwatch.IMetric;
  queue: IQueue;
  deadLetterQueue: IQueue;
  functions: Readonly<Record<string, IFunction>>;
  /** Subscribed to the alarm topic when given. */
  email?: string;
}

export const ALARM_PERIOD = Duration.seconds(ALARMS.periodSeconds);

/** Sustained 5xx: every 5-minute period for this long. Providers retry a blip; an outage needs a human. */
export const EDGE_5XX_ALARM_PERIODS = 3;

export class RatchetAlarms extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];

  constructor(scope: Construct, id: string, props: RatchetAlarmsProps) {
    super(scope, id);
    this.topic = new sns.Topic(this, 'Topic', { displayName: 'Ratchet alarms', enforceSSL: true });
    if (props.email) this.topic.addSubscription(new EmailSubscription(props.email));

    this.add('DeadLetterQueueNotEmpty', {
      alarmDescription:
        'Events the consumer failed 5 times are in the DLQ. Fix the cause, then redrive the DLQ (`ratchet dlq redrive`).',
      metric: props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        period: ALARM_PERIOD,
        statistic: 'Maximum',
      }),
      threshold: 1,
      evaluationPeriods: 1,
    });
    // Events older than this in the queue mean the consumer is not keeping up (or not running).
    this.add('QueueBacklogOld', {
      alarmDescription: `The oldest queued event is over ${ALARMS.queueAgeSeconds / 60} minutes old: the consumer is failing or not keeping up, and suppressions lag behind.`,
      metric: props.queue.metricApproximateAgeOfOldestMessage({ period: ALARM_PERIOD, statistic: 'Maximum' }),
      threshold: ALARMS.queueAgeSeconds,
      evaluationPeriods: 1,
    });
    this.add('EdgeServerErrors', {
      alarmDescription: `The webhook API answered 5xx in each of the last ${EDGE_5XX_ALARM_PERIODS} 5-minute periods: providers are retrying, and SNS gives up after about 37 minutes.`,
      metric: props.serverErrors,
      threshold: 1,
      evaluationPeriods: EDGE_5XX_ALARM_PERIODS,
      datapointsToAlarm: EDGE_5XX_ALARM_PERIODS,
    });
    for (const [role, fn] of Object.entries(props.functions)) this.addFunctionErrors(role, fn);
  }

  /**
   * `<Role>FunctionErrors`: the function crashed or timed out. Handled failures are answers (edge) or
   * partial batch failures (consumer, sync worker); Errors counts crashes and timeouts.
   */
  addFunctionErrors(role: string, fn: IFunction): cloudwatch.Alarm {
    return this.add(`${role[0]!.toUpperCase()}${role.slice(1)}FunctionErrors`, {
      alarmDescription: `The ${role} Lambda crashed or timed out.`,
      metric: fn.metricErrors({ period: ALARM_PERIOD, statistic: 'Sum' }),
      threshold: 1,
      evaluationPeriods: 1,
    });
  }

  /** An alarm at >= threshold that notifies the topic; no data (no traffic) is not a failure. */
  add(id: string, props: Omit<cloudwatch.AlarmProps, 'comparisonOperator' | 'treatMissingData'>): cloudwatch.Alarm {
    const alarm = new cloudwatch.Alarm(this, id, {
      ...props,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      // No data means no traffic (SQS metrics stop for an idle queue), not a failure.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    alarm.addAlarmAction(new SnsAction(this.topic));
    this.alarms.push(alarm);
    return alarm;
  }
}
