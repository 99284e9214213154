/**
 * The CloudWatch metrics Ratchet's own code emits (EMF, through Powertools), by name, service and
 * dimension: the one place the dashboard and the alarms take them from. test/infra checks every name
 * here against the emitters' source (`counters.count('<name>', …)` under lambdas/), so a renamed
 * metric fails a test instead of leaving a dashboard graph silently empty.
 *
 * Powertools adds a `service` dimension to every metric, so a metric is identified by
 * {service, provider}: both are needed to find it.
 */
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';

export const METRIC_NAMESPACE = 'Ratchet';
export const PROVIDER_DIMENSION = 'provider';
export const SERVICE_DIMENSION = 'service';

/** `POWERTOOLS_SERVICE_NAME` per role, and the `service` dimension of its metrics. */
export const SERVICES = {
  edge: 'ratchet-edge',
  consumer: 'ratchet-consumer',
  reputation: 'ratchet-reputation',
  reputationCounter: 'ratchet-reputation-counter',
} as const;
export type Service = keyof typeof SERVICES;

/** Per request, by outcome (edge). */
export const EDGE_METRICS = {
  admitted: 'EventsAdmitted',
  duplicate: 'EventsDuplicate',
  ignored: 'EventsIgnored',
  /** Any 4xx: bad signature, stale, off an allowlist, malformed, unknown provider. */
  rejected: 'RequestsRejected',
  /** Any 5xx: the provider retries. */
  transient: 'TransientFailures',
  subscriptionsConfirmed: 'SubscriptionsConfirmed',
  /** Someone unsubscribed the SES topic's HTTPS endpoint. */
  unsubscribeConfirmations: 'UnsubscribeConfirmations',
  /** A provider secret that does not parse (answered 503). */
  configurationErrors: 'ConfigurationErrors',
  /** An SES feed message that can never be admitted (not authentic, off the allowlist), moved to the SES dead-letter queue. */
  sesFeedDeadLettered: 'SesFeedDeadLettered',
} as const;

/** Per event (consumer). */
export const CONSUMER_METRICS = {
  applied: 'EventsApplied',
  suppressed: 'AddressesSuppressed',
} as const;

/**
 * The consumer's sync fast path (service `ratchet-consumer`): a change it could not put on the sync
 * queue, counted per sync provider (the `provider` dimension names the sync target, not a webhook
 * sender). Nothing is lost (the sweeper sends it), but a steady count means changes wait a sweep.
 */
export const SYNC_FAST_PATH_METRICS = { failed: 'SyncFastPathFailed' } as const;

/**
 * Gauges the reputation evaluator publishes every run (`publish({ SendersInWarn, SendersInBreach })` in
 * lambdas/core/reputation/evaluate.ts), with the `service` dimension only: counts across all senders.
 */
export const REPUTATION_METRICS = { warn: 'SendersInWarn', breach: 'SendersInBreach' } as const;

/** Metric filters on the API access log (no dimensions). */
export const ACCESS_LOG_METRICS = { throttled: 'ApiThrottled' } as const;

export type EdgeMetric = (typeof EDGE_METRICS)[keyof typeof EDGE_METRICS];
export type ConsumerMetric =
  | (typeof CONSUMER_METRICS)[keyof typeof CONSUMER_METRICS]
  | (typeof SYNC_FAST_PATH_METRICS)[keyof typeof SYNC_FAST_PATH_METRICS];

/** One code-emitted metric for one provider. */
export function ratchetMetric(
  service: Service,
  metricName: EdgeMetric | ConsumerMetric,
  provider: string,
  props: cloudwatch.MetricOptions = {},
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRIC_NAMESPACE,
    metricName,
    dimensionsMap: { [SERVICE_DIMENSION]: SERVICES[service], [PROVIDER_DIMENSION]: provider },
    statistic: 'Sum',
    ...props,
  });
}
