/** Markdown for `npm run capacity`, one section per profile, and the JSON form of a report. */

import type { Check } from './checks.js';
import { AWS_LIMITS, LIMITS_CHECKED } from './limits.js';
import type { CapacityReport } from './model.js';

const num = (x: number, digits = 3): string => {
  if (!Number.isFinite(x)) return x > 0 ? '∞' : '—';
  if (Math.abs(x) >= 100) return Math.round(x).toLocaleString('en-US');
  return Number(x.toPrecision(digits)).toString();
};

export function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return 'never';
  if (seconds === 0) return '0';
  if (seconds < 120) return `${num(seconds)} s`;
  if (seconds < 2 * 3600) return `${num(seconds / 60)} min`;
  if (seconds < 2 * 86_400) return `${num(seconds / 3600)} h`;
  return `${num(seconds / 86_400)} days`;
}

const table = (columns: string[], rows: string[][]) =>
  [
    `| ${columns.join(' | ')} |`,
    `|${columns.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');

function binds(c: Check): string {
  return Number.isFinite(c.bindsAtSendRate) ? `${num(c.bindsAtSendRate)} sends/s` : 'never (capped upstream)';
}

export function renderProfile(r: CapacityReport): string {
  const out: string[] = [
    `### Profile \`${r.profile.name}\``,
    '',
    `${r.profile.description}. ${num(r.recipients)} recipients, peak ${num(r.peakSendRate)} sends/s; concurrency budget ${r.budget}; sync-due index over ${r.shards} shard${r.shards === 1 ? '' : 's'}.`,
    '',
  ];
  const first = r.firstBinding;
  out.push(
    first
      ? `**First limit that binds: ${first.resource}, ${first.limit} (${first.kind}), at ${num(first.bindsAtSendRate)} sends/s** (${num(first.capacity)} ${first.unit}; this profile's peak is ${num(r.peakSendRate)} sends/s, ${first.bindsAtSendRate <= r.peakSendRate ? 'so it binds in this profile' : 'so it does not bind here'}).`
      : '**No limit binds at any send rate.**',
    r.firstAwsBinding
      ? `First AWS quota: ${r.firstAwsBinding.resource}, ${r.firstAwsBinding.limit}, at ${num(r.firstAwsBinding.bindsAtSendRate)} sends/s.`
      : 'No AWS quota binds at any send rate: every stage is bounded upstream of them.',
    '',
    table(
      [
        'queue → function',
        'peak arrival /s',
        'service /s',
        'peak backlog',
        'drain',
        'longest wait',
        'retention',
        'concurrency at peak / max',
        'in flight at peak',
      ],
      r.queues.map((q) => [
        q.resource,
        num(q.peakArrival),
        num(q.serviceRate),
        num(q.peakBacklog),
        duration(q.drainSeconds),
        duration(q.longestWaitSeconds),
        q.retentionSeconds === undefined ? '—' : duration(q.retentionSeconds),
        `${num(q.concurrencyAtPeak)} / ${q.maxConcurrency}${q.concurrencyFrom === 'definitions' ? ' (definitions; not in the template)' : ''}`,
        num(q.inFlightAtPeak),
      ]),
    ),
    '',
    `Front door (${r.front.kind}): ${num(r.front.requestsAtPeak)} requests/s at the peak against ${r.front.kind === 'api-gateway' ? `a route throttle of ${num(r.front.limit)}/s` : `a reserved concurrency of ${num(r.front.limit)}`}; edge concurrency ${num(r.front.edgeConcurrencyAtPeak)}.`,
    `Lambda concurrency at the peak: ${num(r.concurrency.atPeak)} (${Object.entries(r.concurrency.parts)
      .map(([k, v]) => `${k} ${num(v)}`)
      .join(
        ', ',
      )}); at most ${r.concurrency.possible} with every function at its bound (${r.concurrency.possibleParts}), against the budget of ${r.concurrency.budget} and the account's ${r.concurrency.account}. The inbox stream has about ${num(r.concurrency.streamShards)} shards at the peak (one per inbox partition: its steady-state size over 10 GB, or its writes over 1,000 a second); the reputation counter reads each with one copy at most, ${num(r.concurrency.parts.reputationCounter ?? 0)} busy, shards beyond its reserved concurrency waiting their turn (capacity/reputation.ts).`,
    '',
    table(
      ['table / index', 'hottest partition key', 'writes/s', 'reads/s', 'limit (writes / reads)', 'why'],
      r.partitions.map((p) => [
        p.table,
        p.key,
        num(p.writesPerSecond),
        num(p.readsPerSecond),
        `${AWS_LIMITS.dynamoPartitionWrites.value} / ${AWS_LIMITS.dynamoPartitionReads.value}`,
        p.note,
      ]),
    ),
    '',
  );
  if (r.providers.length > 0)
    out.push(
      table(
        [
          'sync to',
          'needed at the peak (changes/s)',
          'worker pace (requests/s)',
          'changes a request at the pace',
          'documented limit (requests)',
        ],
        r.providers.map((p) => [
          p.provider,
          num(p.needed),
          num(p.pace),
          num(p.perRequest),
          p.documented === undefined ? p.note : `${p.documented}/s (${p.note})`,
        ]),
      ),
      '',
    );
  out.push(
    table(
      ['resource', 'limit', 'kind', 'at peak', 'limit value', 'binds at'],
      r.checks.map((c) => [c.resource, c.limit, c.kind, `${num(c.atPeak)} ${c.unit}`, num(c.capacity), binds(c)]),
    ),
    '',
  );
  for (const n of r.notes) out.push(`- ${n}`);
  if (r.notes.length > 0) out.push('');
  return out.join('\n');
}

export function renderLimits(): string {
  return [
    `AWS limits used (checked ${LIMITS_CHECKED}; capacity/limits.ts quotes each page):`,
    '',
    table(
      ['limit', 'value', 'source'],
      Object.entries(AWS_LIMITS).map(([name, l]) => [name, `${l.value.toLocaleString('en-US')} ${l.unit}`, l.source]),
    ),
  ].join('\n');
}

/** The report without the plot points, for `--json`. */
export function toJson(r: CapacityReport) {
  const finite = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    profile: r.profile,
    peakSendRate: r.peakSendRate,
    recipients: r.recipients,
    firstBinding: r.firstBinding
      ? { ...r.firstBinding, bindsAtSendRate: finite(r.firstBinding.bindsAtSendRate) }
      : null,
    firstAwsBinding: r.firstAwsBinding
      ? { ...r.firstAwsBinding, bindsAtSendRate: finite(r.firstAwsBinding.bindsAtSendRate) }
      : null,
    queues: r.queues.map(({ run: _run, ...q }) => q),
    front: { ...r.front, limit: finite(r.front.limit) },
    concurrency: r.concurrency,
    partitions: r.partitions,
    providers: r.providers,
    checks: r.checks.map((c) => ({ ...c, capacity: finite(c.capacity), bindsAtSendRate: finite(c.bindsAtSendRate) })),
    notes: r.notes,
  };
}
