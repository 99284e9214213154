/**
 * Log and Counters ports backed by Powertools: JSON log lines and CloudWatch EMF metrics.
 * Callers pass already-redacted fields; nothing here ever sees a signature or a header value.
 *
 * Cost shapes both: CloudWatch Logs bills every ingested byte, so INFO is one line per request (edge)
 * or per batch (consumer), per-event detail is DEBUG (`LOG_LEVEL`, default INFO), and counts are
 * buffered and flushed as one EMF record per provider once per invocation, not one line per count.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { Counters, Log } from '../core/pipeline/ports.js';
import { LOG_LEVEL_VALUES as LEVELS } from './environment.js';

type Level = (typeof LEVELS)[number];

/** `LOG_LEVEL` (case-insensitive), INFO when unset; an unknown value is refused at start-up, not ignored. */
export function logLevel(value: string | undefined): Level {
  const level = (value ?? 'INFO').trim().toUpperCase() || 'INFO';
  if (!(LEVELS as readonly string[]).includes(level)) throw new Error(`LOG_LEVEL must be one of ${LEVELS.join(', ')}`);
  return level as Level;
}

export function powertoolsLog(serviceName: string, level?: string): Log & { logger: Logger } {
  const logger = new Logger({ serviceName, logLevel: logLevel(level) });
  return {
    logger,
    debug: (message, fields) => logger.debug(message, fields ?? {}),
    info: (message, fields) => logger.info(message, fields ?? {}),
    warn: (message, fields) => logger.warn(message, fields ?? {}),
    error: (message, fields) => logger.error(message, fields ?? {}),
  };
}

/**
 * Counts buffered per `provider` dimension; `flush()` writes one EMF record per provider seen (usually
 * one) and is called once at the end of every invocation by the edge and the consumer handler.
 * Set POWERTOOLS_METRICS_DISABLED=true to silence it.
 */
export function powertoolsCounters(serviceName: string, namespace: string): Counters {
  const byProvider = new Map<string, Metrics>();
  return {
    count(name, value, provider) {
      if (value === 0) return;
      let metrics = byProvider.get(provider);
      if (!metrics) {
        metrics = new Metrics({ serviceName, namespace, defaultDimensions: { provider } });
        byProvider.set(provider, metrics);
      }
      metrics.addMetric(name, MetricUnit.Count, value);
    },
    flush() {
      for (const metrics of byProvider.values()) {
        if (metrics.hasStoredMetrics()) metrics.publishStoredMetrics();
      }
    },
  };
}

/** In-memory counters, for the local runtime's shutdown summary and for tests. */
export class MemoryCounters implements Counters {
  readonly totals = new Map<string, number>();
  flushes = 0;
  count(name: string, value: number, provider: string): void {
    const key = `${name}{provider=${provider}}`;
    this.totals.set(key, (this.totals.get(key) ?? 0) + value);
  }
  flush(): void {
    this.flushes++;
  }
}
