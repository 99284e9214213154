/**
 * §13 Sync backlog: BENCH_SYNC_BACKLOG (default 20,000) pending items whose fast-path messages were lost
 * (the outbox markers only, as after a crash or a lost burst), drained by the local runtime's sweeper,
 * poller and worker into the SendGrid fake, with a sweep every few seconds (far more often than the
 * minute on AWS, so any lease that lapses while its message is still queued shows up as a second
 * message). Reported: messages sent per pending item, and provider calls per (address, provider); the
 * issue's bound for both is 1.05.
 */
import { DynamoSuppressionStore } from '../lambdas/adapters/dynamodb-suppressions.js';
import { FAST_PATH_GRACE_MS } from '../lambdas/adapters/suppression-sync-fields.js';
import { policyFromSettings } from '../lambdas/core/suppression/index.js';
import { startProviderFakes } from '../test/fakes/providers/index.js';
import { SILENT_LOG, startLocalStack } from '../test/support/local-stack.js';
import { onCleanup } from './lib/cleanup.js';
import { fmt } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const LOOPS = 4;
const SWEEP_EVERY_MS = 5_000;
const BOUND = 1.05;

export interface SyncBacklogResult {
  items: number;
  messagesSent: number;
  messagesHandled: number;
  /** Of the provider calls, the lookups before a push again (ask-first). */
  providerCalls: number;
  lookups: number;
  maxCallsPerAddress: number;
  drainSeconds: number;
  sweeps: number;
}

export async function measureSyncBacklog(
  items = Number(process.env.BENCH_SYNC_BACKLOG ?? 20_000),
): Promise<SyncBacklogResult> {
  const fakes = await startProviderFakes();
  const cancel = onCleanup(() => fakes.close());
  const env = { ...fakes.env, SYNC_PROVIDERS: 'sendgrid', SYNC_SENDGRID_RATE: '1000', SYNC_SENDGRID_CONCURRENCY: '16' };
  const stack = await startLocalStack({
    env,
    background: false,
    log: SILENT_LOG,
    tempDirPrefix: 'ratchet-bench-backlog-',
    onCleanup,
  });
  try {
    const sync = stack.sync!;
    // The backlog: the writer's put with its outbox marker, and no fast path (the message was lost).
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings(env));
    let next = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < items) {
          const i = next++;
          await store.suppress(`backlog${i}@example.com`, { actor: 'bench', reason: 'bench', at: Date.now() });
        }
      }),
    );
    fakes.sendgrid.clearCalls();
    let handled = 0;
    const handler = sync.worker.handler;
    (sync.worker as { handler: typeof handler }).handler = async (event) => {
      handled += event.Records.length;
      return handler(event);
    };
    const started = performance.now();
    let sent = 0;
    let sweeps = 0;
    let running = true;
    // The markers are due a minute after the write; the sweeps look that far ahead, as if the minute had passed.
    const sweeper = (async () => {
      while (running) {
        sent += await sync.sweep(Date.now() + FAST_PATH_GRACE_MS);
        sweeps++;
        await new Promise((r) => setTimeout(r, SWEEP_EVERY_MS));
      }
    })();
    const poll = async () => {
      while (running) if ((await sync.pollOnce(0)) === 0) await new Promise((r) => setTimeout(r, 20));
    };
    const pollers = Array.from({ length: LOOPS }, poll);
    const held = () => fakes.sendgrid.list('unsubscribes').length;
    while (held() < items) await new Promise((r) => setTimeout(r, 200));
    const drainSeconds = (performance.now() - started) / 1000;
    // A little longer: a late duplicate would be sent and pushed now.
    await new Promise((r) => setTimeout(r, 2 * SWEEP_EVERY_MS));
    running = false;
    await Promise.all([sweeper, ...pollers]);
    // Pushes (POST) and the lookups a re-sent or redelivered message asks before pushing again (GET).
    const perAddress = new Map<string, number>();
    let lookups = 0;
    const count = (email: string) => perAddress.set(email, (perAddress.get(email) ?? 0) + 1);
    for (const call of fakes.sendgrid.calls) {
      if (call.status >= 300) continue;
      if (call.method === 'POST')
        for (const email of (JSON.parse(call.body) as { recipient_emails: string[] }).recipient_emails) count(email);
      if (call.method === 'GET' && call.path.startsWith('/v3/asm/suppressions/')) {
        lookups++;
        count(decodeURIComponent(call.path.split('/').at(-1)!));
      }
    }
    return {
      items,
      messagesSent: sent,
      messagesHandled: handled,
      providerCalls: [...perAddress.values()].reduce((a, b) => a + b, 0),
      lookups,
      maxCallsPerAddress: Math.max(...perAddress.values()),
      drainSeconds,
      sweeps,
    };
  } finally {
    await stack.stop();
    await fakes.close();
    cancel();
  }
}

export async function benchSyncBacklog(): Promise<SectionResult> {
  const started = performance.now();
  const r = await measureSyncBacklog();
  const perItem = r.messagesSent / r.items;
  const perAddress = r.providerCalls / r.items;
  return {
    id: 'sync-backlog',
    title: '13. Sync backlog',
    method: [
      `${r.items} suppressions written through DynamoSuppressionStore with no fast path: ${r.items} outbox markers and no message, the backlog a crash or a lost burst leaves.`,
      `Drained by the local runtime (sweeper, ${LOOPS} receive loops, the real worker handler) into the SendGrid fake (SYNC_SENDGRID_RATE 1000, concurrency 16), with a sweep every ${SWEEP_EVERY_MS / 1000} s looking a minute ahead, so every sweep could send a second copy of a message still queued if its lease lapsed.`,
      'Messages per item: messages the sweeps sent / pending items. Provider calls per (address, provider): successful calls to the fake per address, the pushes (POST) and the lookups a re-sent or redelivered message makes before pushing again (GET).',
    ],
    tables: [
      {
        columns: ['measure', 'value'],
        rows: [
          ['pending items', String(r.items)],
          ['sweeps during the drain', String(r.sweeps)],
          ['messages sent by the sweeps', String(r.messagesSent)],
          ['messages handled by the worker', String(r.messagesHandled)],
          [`messages sent per item (bound ${BOUND})`, fmt(perItem)],
          [`provider calls per (address, provider) (bound ${BOUND})`, fmt(perAddress)],
          ['of which lookups before a push again', String(r.lookups)],
          ['most calls for one address', String(r.maxCallsPerAddress)],
          ['drain time (s)', fmt(r.drainSeconds)],
        ],
      },
    ],
    verdicts: [
      {
        subject: 'sync backlog: messages sent per item',
        target: `≤ ${BOUND}`,
        measured: fmt(perItem),
        meets: perItem <= BOUND,
      },
      {
        subject: 'sync backlog: provider calls per (address, provider)',
        target: `≤ ${BOUND}`,
        measured: fmt(perAddress),
        meets: perAddress <= BOUND,
      },
    ],
    notes: [
      "The lease is sized from the sync queue's depth and the drain rate the sweeper measures between sweeps (core/sync/lease.ts), and a sweep adds at most one interval of the workers' work to the queue; the configured ceiling here (1000/s) is far above what one machine drains, so the first leases are short and the later sweeps must correct them.",
    ],
    wallMs: performance.now() - started,
  };
}
