/**
 * The alarms that say something outside Ratchet needs a person: SNS gave up on SES deliveries, a
 * provider's requests are being rejected (a misconfigured sender, or someone probing the endpoint),
 * the front door is throttling, someone unsubscribed the SES endpoint, or a provider secret does not
 * parse. All on the one alarm topic; their first responses are in docs/operations.md.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { ALARMS, SES_FEED } from '../definitions.js';
import { ALARM_PERIOD, type RatchetAlarms } from './alarms.js';
import { EDGE_METRICS, type EdgeMetric, ratchetMetric } from './metric-catalog.js';
import { pascal } from './provider-secrets.js';

export interface SignalAlarmsProps {
  readonly sesTopic: sns.ITopic;
  readonly sesDeadLetterQueue: sqs.IQueue;
  /** The SES feed's queue (`sesFeed=sqs`); without one the topic is subscribed over HTTPS. */
  readonly sesFeedQueue?: sqs.IQueue;
  /** Every provider with a route (one rejected-requests alarm each). */
  readonly providers: readonly string[];
  /** Providers whose credentials come from a secret (ConfigurationErrors). */
  readonly secretProviders: readonly string[];
  readonly rejectedRequestsThreshold: number;
  /** 429s the front door answered. */
  readonly throttled: cloudwatch.IMetric;
}

export function addSignalAlarms(alarms: RatchetAlarms, props: SignalAlarmsProps): void {
  alarms.add('SesDeadLettersNotEmpty', {
    alarmDescription: props.sesFeedQueue
      ? 'SES envelopes are in the SES dead-letter queue: not authentic or off the topic allowlist (moved at once), or failing for an hour (moved by the redrive policy). Fix the cause, then `npm run ratchet -- ses redrive`.'
      : 'SNS gave up delivering SES events to the edge (an hour of 5xx or timeouts) and parked them in the SES dead-letter queue. Fix the cause, then `npm run ratchet -- ses redrive`.',
    metric: props.sesDeadLetterQueue.metricApproximateNumberOfMessagesVisible({
      period: ALARM_PERIOD,
      statistic: 'Maximum',
    }),
    threshold: 1,
    evaluationPeriods: 1,
  });
  if (props.sesFeedQueue) {
    alarms.add('SesFeedBacklogOld', {
      alarmDescription: `The oldest SES envelope in the feed queue is over ${ALARMS.queueAgeSeconds / 60} minutes old: the feed function is failing or not keeping up. Nothing is lost yet (SQS keeps it for ${SES_FEED.retentionDays} days): check the feed function's errors.`,
      metric: props.sesFeedQueue.metricApproximateAgeOfOldestMessage({ period: ALARM_PERIOD, statistic: 'Maximum' }),
      threshold: ALARMS.queueAgeSeconds,
      evaluationPeriods: 1,
    });
  } else {
    alarms.add('SesSubscriptionNotDelivering', {
      alarmDescription: `For ${PENDING_PERIODS} periods of 5 minutes, the SES topic published more messages than SNS delivered or failed to deliver: the HTTPS subscription is pending confirmation (or SNS is far behind its pace). Confirm it (README: checking the SES subscription).`,
      metric: undeliveredMessages(props.sesTopic),
      threshold: 1,
      evaluationPeriods: PENDING_PERIODS,
      datapointsToAlarm: PENDING_PERIODS,
    });
  }
  alarms.add('SesNotificationsFailed', {
    alarmDescription:
      'SNS failed to deliver SES events to the edge (NumberOfNotificationsFailed > 0). They are retried for an hour, then dead-lettered: check the edge and the SES dead-letter queue.',
    metric: props.sesTopic.metricNumberOfNotificationsFailed({ period: ALARM_PERIOD, statistic: 'Sum' }),
    threshold: 1,
    evaluationPeriods: 1,
  });
  for (const provider of props.providers) {
    alarms.add(`RequestsRejected${pascal(provider)}`, {
      alarmDescription: `The edge rejected ${props.rejectedRequestsThreshold} or more ${provider} requests (4xx) in 5 minutes: a credential out of date on one side, or someone probing the endpoint.`,
      metric: ratchetMetric('edge', EDGE_METRICS.rejected, provider, { period: ALARM_PERIOD }),
      threshold: props.rejectedRequestsThreshold,
      evaluationPeriods: 1,
    });
  }
  alarms.add('FrontDoorThrottled', {
    alarmDescription:
      'The front door answered 429. Senders retry it, except SNS, which drops it: raise the limits (throttleRateLimit, sesRouteRateLimit, edgeReservedConcurrency).',
    metric: props.throttled,
    threshold: 1,
    evaluationPeriods: 1,
  });
  alarms.add('SesUnsubscribeConfirmations', {
    alarmDescription:
      'Someone unsubscribed the SES topic from the edge: SES events no longer arrive. Re-subscribe (docs/deploy.md: checking the SES subscription).',
    metric: sumOver(EDGE_METRICS.unsubscribeConfirmations, ['ses']),
    threshold: 1,
    evaluationPeriods: 1,
  });
  if (props.secretProviders.length > 0) {
    alarms.add('ConfigurationErrors', {
      alarmDescription:
        'A provider secret does not parse: that provider is answered 503 and its events wait in its retries. Fix the secret (JSON array of strings) within the retry window.',
      metric: sumOver(EDGE_METRICS.configurationErrors, props.secretProviders),
      threshold: 1,
      evaluationPeriods: 1,
    });
  }
}

/**
 * A message published in one period may be delivered in the next, so one period with more published
 * than delivered is noise; three in a row (15 minutes) is a subscription that is not delivering.
 */
export const PENDING_PERIODS = 3;

/** Published minus (delivered + failed): above zero while messages reach no endpoint at all. */
function undeliveredMessages(topic: sns.ITopic): cloudwatch.IMetric {
  const options = { period: ALARM_PERIOD, statistic: 'Sum' };
  return new cloudwatch.MathExpression({
    expression: 'FILL(published, 0) - (FILL(delivered, 0) + FILL(failed, 0))',
    usingMetrics: {
      published: topic.metricNumberOfMessagesPublished(options),
      delivered: topic.metricNumberOfNotificationsDelivered(options),
      failed: topic.metricNumberOfNotificationsFailed(options),
    },
    period: ALARM_PERIOD,
    label: 'SES messages published but neither delivered nor failed',
  });
}

/** An edge metric summed over providers (alarms cannot use SEARCH; at most 10 metrics in a math expression). */
function sumOver(name: EdgeMetric, providers: readonly string[]): cloudwatch.IMetric {
  if (providers.length === 1) return ratchetMetric('edge', name, providers[0]!, { period: ALARM_PERIOD });
  const usingMetrics = Object.fromEntries(
    providers.map((p, i) => [`m${i}`, ratchetMetric('edge', name, p, { period: ALARM_PERIOD })]),
  );
  return new cloudwatch.MathExpression({
    // A provider with no data in a period would blank a plain `m0 + m1`; FILL makes it count as 0.
    expression: `SUM([${Object.keys(usingMetrics)
      .map((id) => `FILL(${id}, 0)`)
      .join(', ')}])`,
    usingMetrics,
    period: ALARM_PERIOD,
    label: `${name} (all providers)`,
  });
}
