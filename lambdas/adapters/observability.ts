/**
 * Log and Counters ports backed by Powertools: JSON log lines and CloudWatch EMF metrics.
 * Callers pass already-redacted fields; nothing here ever sees a signature or a header value.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Counters, Log } from '../core/pipeline/ports.js';

export function powertoolsLog(serviceName: string): Log & { logger: Logger } {
  const logger = new Logger({ serviceName });
  return {
    logger,
    info: (message, fields) => logger.info(message, fields ?? {}),
    warn: (message, fields) => logger.warn(message, fields ?? {}),
    error: (message, fields) => logger.error(message, fields ?? {}),
  };
}

/**
 * One EMF line per count with a `provider` dimension. `singleMetric` flushes at once, which suits an edge
 * that answers one request per invocation and a local runtime that has no invocation boundary.
 * Set POWERTOOLS_METRICS_DISABLED=true to silence it (the local runtime does).
 */
export function powertoolsCounters(serviceName: string, namespace: string): Counters {
  const metrics = new Metrics({ serviceName, namespace });
  return {
    count(name, value, provider) {
      if (value === 0) return;
      const single = metrics.singleMetric();
      single.addDimension('provider', provider);
      single.addMetric(name, MetricUnit.Count, value);
    },
  };
}

/** In-memory counters, for the local runtime's shutdown summary and for tests. */
export class MemoryCounters implements Counters {
  readonly totals = new Map<string, number>();
  count(name: string, value: number, provider: string): void {
    const key = `${name}{provider=${provider}}`;
    this.totals.set(key, (this.totals.get(key) ?? 0) + value);
  }
}
