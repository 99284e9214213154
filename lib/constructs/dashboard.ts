/**
 * One CloudWatch dashboard: a row per provider (requests by outcome, dedup rate, events applied and
 * addresses suppressed), then the queue (depth, and the oldest message's age against the shortest
 * provider retry window), both dead-letter queues, the two Lambdas (p50/p99 duration, errors,
 * throttles) and the front door (4xx, 429, 5xx). Ratchet's own metrics come from metric-catalog.ts.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { ALARMS } from '../definitions.js';
import { CONSUMER_METRICS, EDGE_METRICS, ratchetMetric } from './metric-catalog.js';

/**
 * SNS's: it gives up on a delivery an hour after the publish (SendGrid retries for 24 h, Mailgun for
 * about 8 h, Postmark for about 70 minutes). An event older than this in our queue was admitted long
 * ago, but a consumer that far behind is also too slow to absorb a redelivery storm.
 */
export const SHORTEST_RETRY_WINDOW_SECONDS = 3600;

export interface FrontDoorMetrics {
  readonly clientErrors: cloudwatch.Metric;
  readonly throttled: cloudwatch.Metric;
  readonly serverErrors: cloudwatch.Metric;
}

export interface RatchetDashboardProps {
  readonly providers: readonly string[];
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  readonly sesDeadLetterQueue: IQueue;
  /** The SES feed's queue (`sesFeed=sqs`): a row of its own. */
  readonly sesFeedQueue?: IQueue;
  readonly functions: Readonly<Record<string, IFunction>>;
  readonly front: FrontDoorMetrics;
}

const PERIOD = Duration.minutes(5);
const WIDTH = 8;

export class RatchetDashboard extends Construct {
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: RatchetDashboardProps) {
    super(scope, id);
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(24) });
    for (const provider of props.providers) this.dashboard.addWidgets(...providerRow(provider));

    const age = props.queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' });
    this.dashboard.addWidgets(
      graph('Queue depth', [
        props.queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
      ]),
      new cloudwatch.GraphWidget({
        title: 'Oldest queued event (s) vs the shortest retry window',
        left: [age],
        leftAnnotations: [
          { value: SHORTEST_RETRY_WINDOW_SECONDS, label: 'SNS retry window (1 h)', color: cloudwatch.Color.RED },
        ],
        width: WIDTH,
      }),
      graph('Dead-letter queues', [
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: 'Maximum',
          label: 'events DLQ',
        }),
        props.sesDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
          period: PERIOD,
          statistic: 'Maximum',
          label: 'SES dead letters',
        }),
      ]),
    );
    if (props.sesFeedQueue) this.dashboard.addWidgets(...sesFeedRow(props.sesFeedQueue));
    for (const [role, fn] of Object.entries(props.functions)) {
      this.dashboard.addWidgets(
        graph(`${role}: duration p50 / p99 (ms)`, [
          fn.metricDuration({ period: PERIOD, statistic: 'p50', label: 'p50' }),
          fn.metricDuration({ period: PERIOD, statistic: 'p99', label: 'p99' }),
        ]),
        graph(`${role}: errors and throttles`, [
          fn.metricErrors({ period: PERIOD, statistic: 'Sum', label: 'errors' }),
          fn.metricThrottles({ period: PERIOD, statistic: 'Sum', label: 'throttles' }),
        ]),
      );
    }
    this.dashboard.addWidgets(
      graph('Front door: 4xx, 429, 5xx', [
        props.front.clientErrors.with({ label: '4xx' }),
        props.front.throttled.with({ label: '429' }),
        props.front.serverErrors.with({ label: '5xx' }),
      ]),
    );
  }
}

/** The SES feed: what waits in its queue, how old the oldest is, and what the feed dead-lettered itself. */
function sesFeedRow(queue: IQueue): cloudwatch.IWidget[] {
  return [
    graph('SES feed: queued envelopes', [
      queue.metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' }),
    ]),
    new cloudwatch.GraphWidget({
      title: 'SES feed: oldest envelope (s)',
      left: [queue.metricApproximateAgeOfOldestMessage({ period: PERIOD, statistic: 'Maximum' })],
      leftAnnotations: [{ value: ALARMS.queueAgeSeconds, label: 'alarm', color: cloudwatch.Color.RED }],
      width: WIDTH,
    }),
    graph('SES feed: dead-lettered (never admissible)', [
      ratchetMetric('edge', EDGE_METRICS.sesFeedDeadLettered, 'ses', { period: PERIOD, label: 'dead-lettered' }),
    ]),
  ];
}

function providerRow(provider: string): cloudwatch.IWidget[] {
  const edge = (name: (typeof EDGE_METRICS)[keyof typeof EDGE_METRICS], label: string) =>
    ratchetMetric('edge', name, provider, { period: PERIOD, label });
  const admitted = edge(EDGE_METRICS.admitted, 'admitted');
  const duplicate = edge(EDGE_METRICS.duplicate, 'duplicate');
  return [
    graph(`${provider}: requests by outcome`, [
      admitted,
      duplicate,
      edge(EDGE_METRICS.ignored, 'ignored'),
      edge(EDGE_METRICS.rejected, 'rejected (4xx)'),
      edge(EDGE_METRICS.transient, '5xx'),
    ]),
    graph(`${provider}: dedup rate (%)`, [
      new cloudwatch.MathExpression({
        expression: '100 * FILL(d, 0) / (FILL(a, 0) + FILL(d, 0))',
        usingMetrics: { a: admitted, d: duplicate },
        label: 'duplicates / events',
        period: PERIOD,
      }),
    ]),
    graph(`${provider}: applied and suppressed`, [
      ratchetMetric('consumer', CONSUMER_METRICS.applied, provider, { period: PERIOD, label: 'events applied' }),
      ratchetMetric('consumer', CONSUMER_METRICS.suppressed, provider, {
        period: PERIOD,
        label: 'addresses suppressed',
      }),
    ]),
  ];
}

const graph = (title: string, left: cloudwatch.IMetric[]) => new cloudwatch.GraphWidget({ title, left, width: WIDTH });
