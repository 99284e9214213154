/**
 * The dashboard and the alarms use Ratchet's own metrics by the names, services and dimensions the
 * code emits: checked against the emitters' source, not against a copied list.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { SHORTEST_RETRY_WINDOW_SECONDS } from '../../lib/constructs/dashboard.js';
import {
  ACCESS_LOG_METRICS,
  CONSUMER_METRICS,
  EDGE_METRICS,
  METRIC_NAMESPACE,
  REPUTATION_METRICS,
  SERVICES,
  SYNC_FAST_PATH_METRICS,
} from '../../lib/constructs/metric-catalog.js';
import { ALARMS } from '../../lib/definitions.js';
import { resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate();
}, 180_000);
afterAll(() => s?.cleanup());

/** Every .ts file under lambdas/, read once. */
function sources(dir = 'lambdas'): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [readFileSync(path, 'utf8')] : [];
  });
}
const code = sources().join('\n');

/**
 * Names in the first argument of `counters.count(<name>, …)`: string literals, ternaries included
 * (`cond ? 'A' : 'B'`), and constants (`count(CONFIGURATION_ERRORS_METRIC, …)`), resolved through
 * their `const NAME = 'Value'` declaration anywhere in `source`.
 */
function emittedMetricNames(source: string): Set<string> {
  const constants = new Map(
    [...source.matchAll(/\bconst\s+([A-Z][A-Z0-9_]*)\s*=\s*['"]([A-Za-z]+)['"]/g)].map((m) => [m[1]!, m[2]!]),
  );
  return new Set(
    [...source.matchAll(/\bcount\(([^,()]*),/g)].flatMap((m) => [
      ...[...m[1]!.matchAll(/['"]([A-Z][A-Za-z]+)['"]/g)].map((x) => x[1]!),
      ...[...m[1]!.matchAll(/\b([A-Z][A-Z0-9_]*)\b/g)].flatMap((x) => constants.get(x[1]!) ?? []),
    ]),
  );
}
const emittedNames = emittedMetricNames(code);
/** The reputation gauges: the keys of the evaluator's one `publish({ ... })` call, with the service dimension only. */
const gauges = new Set<string>(Object.values(REPUTATION_METRICS));
const isGauge = (name: string) => gauges.has(name);
/** `powertoolsCounters('<service>', '<namespace>')`: the service dimension and namespace per role. */
const emitters = [...code.matchAll(/powertoolsCounters\(\s*'([^']+)'\s*,\s*'([^']+)'\s*\)/g)].map((m) => ({
  service: m[1]!,
  namespace: m[2]!,
}));

/** The dashboard body with every token replaced by a placeholder, parsed. */
function dashboardBody(): {
  widgets: Array<{ properties: { title: string; metrics?: unknown[][]; annotations?: any } }>;
} {
  const dashboard = Object.values(resources(s)).find((r) => r.Type === 'AWS::CloudWatch::Dashboard')!;
  const body = dashboard.Properties.DashboardBody;
  const text =
    typeof body === 'string'
      ? body
      : (body['Fn::Join'][1] as unknown[]).map((p) => (typeof p === 'string' ? p : 'TOKEN')).join('');
  return JSON.parse(text);
}

/** [namespace, metricName, dimName, dimValue, ...] rows (CloudWatch's compact form; '.' repeats the row above). */
function ratchetMetricRows(): Array<{ name: string; dimensions: Record<string, string> }> {
  const rows: Array<{ name: string; dimensions: Record<string, string> }> = [];
  for (const widget of dashboardBody().widgets) {
    for (const row of widget.properties.metrics ?? []) {
      const parts = row.filter((x) => typeof x === 'string') as string[];
      // ApiThrottled comes from the access-log metric filter (webhook-api.test.ts), not from code.
      if (parts[0] !== METRIC_NAMESPACE || parts[1] === ACCESS_LOG_METRICS.throttled) continue;
      const dimensions: Record<string, string> = {};
      for (let i = 2; i + 1 < parts.length; i += 2) dimensions[parts[i]!] = parts[i + 1]!;
      rows.push({ name: parts[1]!, dimensions });
    }
  }
  return rows;
}

describe('metric catalog against the emitters', () => {
  it('finds names given as literals, in ternaries and through constants, and nothing else (the scanner itself)', () => {
    const sample = [
      "counters.count('Literal', 1, provider);",
      "this.deps.counters.count(error.status >= 500 ? 'Five' : 'Four', 1, provider);",
      "export const SOME_METRIC = 'FromConstant';",
      'reporter.counters.count(SOME_METRIC, 1, provider);',
      "const UNUSED_METRIC = 'NeverCounted';",
      'counters.count(UNDECLARED, 1, provider);',
      "log.info('NotACount', { n: 1 });",
    ].join('\n');
    expect([...emittedMetricNames(sample)].sort()).toEqual(['Five', 'Four', 'FromConstant', 'Literal']);
  });

  it('every edge, consumer and fast-path metric in the catalog is emitted by the code', () => {
    for (const name of [
      ...Object.values(EDGE_METRICS),
      ...Object.values(CONSUMER_METRICS),
      ...Object.values(SYNC_FAST_PATH_METRICS),
    ]) {
      expect(emittedNames.has(name), name).toBe(true);
    }
    expect(emittedNames.size).toBeGreaterThanOrEqual(8);
  });

  it('the reputation gauges are the keys the evaluator publishes, and both are on the dashboard', () => {
    const published = /publish\(\{\s*([A-Za-z]+):[^,]+,\s*([A-Za-z]+):/.exec(code);
    expect([published?.[1], published?.[2]].sort()).toEqual([...gauges].sort());
    const names = ratchetMetricRows().map((r) => r.name);
    for (const name of gauges) expect(names, name).toContain(name);
  });

  it('the catalog has the services and namespace the emitters use', () => {
    expect(emitters).toEqual(
      expect.arrayContaining([
        { service: SERVICES.edge, namespace: METRIC_NAMESPACE },
        { service: SERVICES.consumer, namespace: METRIC_NAMESPACE },
      ]),
    );
    for (const e of emitters) expect(e.namespace).toBe(METRIC_NAMESPACE);
    // The dimension every count carries besides Powertools' `service`.
    expect(code).toMatch(/defaultDimensions: \{ provider \}/);
  });
});

describe('dashboard', () => {
  it('graphs, per provider, every outcome, the dedup rate, events applied and addresses suppressed, by emitted names and {service, provider}', () => {
    const rows = ratchetMetricRows();
    const providers = PROVIDERS.filter((p) => p.name !== 'unsubscribe').map((p) => p.name);
    for (const provider of providers) {
      const mine = rows.filter((r) => r.dimensions.provider === provider);
      expect(mine.map((r) => r.name).sort(), provider).toEqual(
        [
          EDGE_METRICS.admitted,
          EDGE_METRICS.admitted, // outcome graph and dedup rate
          EDGE_METRICS.duplicate,
          EDGE_METRICS.duplicate,
          EDGE_METRICS.ignored,
          EDGE_METRICS.rejected,
          EDGE_METRICS.transient,
          CONSUMER_METRICS.applied,
          CONSUMER_METRICS.suppressed,
          // The SES feed's row (sesFeed=sqs, the default).
          ...(provider === 'ses' ? [EDGE_METRICS.sesFeedDeadLettered] : []),
        ].sort(),
      );
    }
    for (const row of rows) {
      if (isGauge(row.name)) {
        expect(row.dimensions, row.name).toEqual({ service: SERVICES.reputation });
        continue;
      }
      expect(emittedNames.has(row.name), row.name).toBe(true);
      expect(Object.keys(row.dimensions).sort()).toEqual(['provider', 'service']);
      const service = (Object.values(CONSUMER_METRICS) as string[]).includes(row.name)
        ? SERVICES.consumer
        : SERVICES.edge;
      expect(row.dimensions.service, row.name).toBe(service);
    }
  });

  it('queue depth, oldest age against the shortest retry window, both DLQs, Lambda p50/p99, errors, throttles, and the front door 4xx/429/5xx', () => {
    const widgets = dashboardBody().widgets.map((w) => w.properties);
    const titles = widgets.map((w) => w.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Queue depth',
        'Oldest queued event (s) vs the shortest retry window',
        'Dead-letter queues',
        'edge: duration p50 / p99 (ms)',
        'consumer: duration p50 / p99 (ms)',
        'edge: errors and throttles',
        'consumer: errors and throttles',
        'Front door: 4xx, 429, 5xx',
        'SES feed: queued envelopes',
        'SES feed: oldest envelope (s)',
        'SES feed: dead-lettered (never admissible)',
        'feed: duration p50 / p99 (ms)',
      ]),
    );
    const feedAge = widgets.find((w) => w.title === 'SES feed: oldest envelope (s)')!;
    expect(JSON.stringify(feedAge.metrics)).toContain('ApproximateAgeOfOldestMessage');
    expect(feedAge.annotations.horizontal[0].value).toBe(ALARMS.queueAgeSeconds);
    const age = widgets.find((w) => w.title.startsWith('Oldest'))!;
    expect(age.annotations.horizontal[0].value).toBe(SHORTEST_RETRY_WINDOW_SECONDS);
    const front = JSON.stringify(widgets.find((w) => w.title.startsWith('Front door'))!.metrics);
    for (const name of ['"4xx"', '"5xx"', '"ApiThrottled"']) expect(front).toContain(name);
    const durations = JSON.stringify(widgets.find((w) => w.title === 'edge: duration p50 / p99 (ms)')!.metrics);
    expect(durations).toContain('"p50"');
    expect(durations).toContain('"p99"');
    expect(
      JSON.stringify(widgets.find((w) => w.title === 'Dead-letter queues')!.metrics).match(
        /ApproximateNumberOfMessagesVisible/g,
      ),
    ).toHaveLength(2);
  });

  it('the alarms on Ratchet metrics use emitted names with {service, provider}', () => {
    for (const alarm of s.stack.ratchet.alarms.alarms) {
      const p = resources(s)[s.stack.getLogicalId(alarm.node.defaultChild as never)]!.Properties;
      const stats = p.Metrics ? p.Metrics.filter((m: any) => m.MetricStat).map((m: any) => m.MetricStat.Metric) : [p];
      for (const m of stats) {
        if (m.Namespace !== METRIC_NAMESPACE || m.MetricName === 'ApiThrottled') continue;
        if (isGauge(m.MetricName)) {
          expect(m.Dimensions).toEqual([{ Name: 'service', Value: SERVICES.reputation }]);
          continue;
        }
        expect(emittedNames.has(m.MetricName), m.MetricName).toBe(true);
        expect(m.Dimensions.map((d: any) => d.Name).sort()).toEqual(['provider', 'service']);
      }
    }
  });
});
