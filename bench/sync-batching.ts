/**
 * §17 Sync at the providers' default rates: batched requests against one address a request. A burst of
 * BENCH_SYNC_BATCH_CHANGES (default 60) manual suppressions written with the fast path, drained by the
 * local runtime into the fakes at each provider's default rate (Resend 1 call a second, SES 5, the others
 * 10), twice in the same run: as shipped (lambdas/adapters/sync-batcher.ts: pushes that wait for the gate
 * share one request, up to the provider's cap), and with batching off (each target's applyMany removed
 * for the run), the baseline. Once for Resend alone, once for every provider together (one queue, so a
 * receive batch is split over the providers, and each provider's request carries only its share).
 */
import { DynamoSuppressionStore } from '../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../lambdas/core/suppression/index.js';
import { SYNC_DEFAULT_LIMITS } from '../lambdas/core/sync/settings.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../lambdas/core/sync/target.js';
import { SYNC_WORKER } from '../lib/sync-definitions.js';
import { type ProviderFakes, startProviderFakes } from '../test/fakes/providers/index.js';
import { SILENT_LOG, startLocalStack } from '../test/support/local-stack.js';
import { onCleanup } from './lib/cleanup.js';
import { fmt } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const LOOPS = 4;
const TIMEOUT_MS = 15 * 60_000;

interface Run {
  providers: readonly SyncProviderName[];
  batched: boolean;
  changes: number;
  /** From the first write until every provider holds every address. */
  seconds: number;
  /** Add requests the fakes took, by provider. */
  requests: Record<string, number>;
  /** Addresses those requests carried, by provider (a change is one per list: Mailgun's per domain). */
  carried: Record<string, number>;
  /** Most times one address was pushed to one list. */
  maxPushes: number;
}

/** The batch methods of every target class, removed for a baseline run and put back after. */
async function withoutBatching<T>(fn: () => Promise<T>): Promise<T> {
  const modules = await Promise.all([
    import('../lambdas/adapters/sync/sendgrid.js'),
    import('../lambdas/adapters/sync/postmark.js'),
    import('../lambdas/adapters/sync/mailgun.js'),
    import('../lambdas/adapters/sync/resend.js'),
  ]);
  const prototypes = modules.flatMap((m) =>
    Object.values(m)
      .filter((v): v is { prototype: { applyMany?: unknown } } => typeof v === 'function' && 'applyMany' in v.prototype)
      .map((c) => c.prototype),
  );
  const saved = prototypes.map((p) => p.applyMany);
  for (const p of prototypes) p.applyMany = undefined;
  try {
    return await fn();
  } finally {
    prototypes.forEach((p, i) => {
      p.applyMany = saved[i];
    });
  }
}

/** Each add request a fake took: the list it added to and the addresses (SES: one PutSuppressedDestination each). */
function pushesOf(
  fakes: ProviderFakes,
  provider: SyncProviderName,
): Array<{ path: string; emails: readonly string[] }> {
  if (provider !== 'ses') return [...fakes[provider].pushes()];
  return fakes.ses.calls
    .filter((c) => c.method === 'PUT' && c.status < 300)
    .map((c) => ({ path: c.path, emails: [(JSON.parse(c.body) as { EmailAddress: string }).EmailAddress] }));
}

function held(fakes: ProviderFakes, provider: SyncProviderName): Set<string> {
  return new Set(pushesOf(fakes, provider).flatMap((p) => p.emails.map((e) => e.toLowerCase())));
}

async function measure(providers: readonly SyncProviderName[], batched: boolean, changes: number): Promise<Run> {
  const fakes = await startProviderFakes();
  const cancel = onCleanup(() => fakes.close());
  // The default rates: nothing raised, as a user runs it.
  const env = { ...fakes.env, SYNC_PROVIDERS: providers.join(',') };
  const start = () =>
    startLocalStack({ env, background: false, log: SILENT_LOG, tempDirPrefix: 'ratchet-bench-batch-', onCleanup });
  const stack = batched ? await start() : await withoutBatching(start);
  try {
    const sync = stack.sync!;
    const store = new DynamoSuppressionStore(
      stack.clients.doc,
      stack.config.suppressionTable,
      policyFromSettings(env),
      {
        onSyncChange: sync.fastPath,
      },
    );
    let running = true;
    const poll = async () => {
      while (running) await sync.pollOnce(1);
    };
    const drain = async () => {
      const started = performance.now();
      const pollers = Array.from({ length: LOOPS }, poll);
      for (let i = 0; i < changes; i++)
        await store.suppress(`burst${i}@example.com`, { actor: 'bench', reason: 'bench', at: Date.now() });
      const done = () => providers.every((p) => held(fakes, p).size >= changes);
      while (!done() && performance.now() - started < TIMEOUT_MS) await new Promise((r) => setTimeout(r, 100));
      const seconds = (performance.now() - started) / 1000;
      running = false;
      await Promise.all(pollers);
      if (!done()) throw new Error(`sync batching bench: not drained within ${TIMEOUT_MS / 60_000} minutes`);
      return seconds;
    };
    const seconds = batched ? await drain() : await withoutBatching(drain);
    const requests: Record<string, number> = {};
    const carried: Record<string, number> = {};
    let maxPushes = 0;
    for (const p of providers) {
      const pushes = pushesOf(fakes, p);
      requests[p] = pushes.length;
      carried[p] = pushes.reduce((n, push) => n + push.emails.length, 0);
      const counts = new Map<string, number>();
      for (const push of pushes)
        for (const e of push.emails) counts.set(`${push.path} ${e}`, (counts.get(`${push.path} ${e}`) ?? 0) + 1);
      maxPushes = Math.max(maxPushes, ...counts.values());
    }
    return { providers, batched, changes, seconds, requests, carried, maxPushes };
  } finally {
    await stack.stop();
    await fakes.close();
    cancel();
  }
}

export async function benchSyncBatching(): Promise<SectionResult> {
  const started = performance.now();
  const changes = Number(process.env.BENCH_SYNC_BATCH_CHANGES ?? 60);
  const scenarios: Array<{ name: string; providers: readonly SyncProviderName[] }> = [
    { name: 'Resend alone', providers: ['resend'] },
    { name: 'all five providers', providers: SYNC_PROVIDER_NAMES },
  ];
  const rows: string[][] = [];
  const informational: NonNullable<SectionResult['informational']> = [];
  for (const scenario of scenarios) {
    const baseline = await measure(scenario.providers, false, changes);
    const batched = await measure(scenario.providers, true, changes);
    for (const run of [baseline, batched])
      rows.push([
        scenario.name,
        run.batched ? 'batched (shipped)' : 'one address a request (baseline)',
        fmt(run.seconds),
        scenario.providers.map((p) => `${p} ${run.requests[p]}`).join(', '),
        scenario.providers.map((p) => fmt(run.carried[p]! / run.requests[p]!)).join(', '),
        String(run.maxPushes),
      ]);
    informational.push({
      subject: `sync at default rates, ${scenario.name}: drain time, one address a request ÷ batched`,
      measured: `${fmt(baseline.seconds / batched.seconds)}×`,
      note: `${fmt(baseline.seconds)} s against ${fmt(batched.seconds)} s for ${changes} changes`,
    });
  }
  return {
    id: 'sync-batching',
    title: '17. Sync at the default rates: batched requests',
    method: [
      `${changes} manual suppressions written one after another through DynamoSuppressionStore with the fast path, drained by the local runtime (${LOOPS} receive loops, receive batches of up to ${SYNC_WORKER.batchSize}, the real worker handler) into the provider fakes at each provider's default rate (${SYNC_PROVIDER_NAMES.map((p) => `${p} ${SYNC_DEFAULT_LIMITS[p].rate}/s`).join(', ')}), timed from the first write until every provider holds every address.`,
      'Each scenario runs twice in the same run on fresh stacks: with batching off (every target without applyMany, so one address a request: the baseline) and as shipped (pushes that wait for a provider share one request, up to its cap; SES takes one address a call either way).',
      'Requests: the add requests each fake took. Addresses a request: the addresses those requests carried ÷ requests (a Mailgun change is one add per sending domain: the fakes configure two). Most pushes of one address: to one list, over every request (1 means none was pushed twice).',
    ],
    tables: [
      {
        columns: [
          'scenario',
          'mode',
          'drain (s)',
          'add requests, by provider',
          'addresses a request, by provider',
          'most pushes of one address to one list',
        ],
        rows,
      },
    ],
    verdicts: [],
    informational,
    notes: [
      `No target is named for this in an issue: the rows show what batching buys at the rates a user starts with. A push rides only in a request that waits for its slot, so a provider batches once changes come faster than its requests a second: here the burst outpaces every provider's default, and each batches but SES, which takes one address a call and sets the five-provider drain. The local runtime's four receive loops share one gate, so one request can carry what several of them received; on AWS a request carries at most one worker copy's receive batch (${SYNC_WORKER.batchSize} messages, every provider's together).`,
    ],
    wallMs: performance.now() - started,
  };
}
