/**
 * `ratchet sync status|retry|reconcile`: the sync side, for the operator.
 *
 *   status [--json]                               per provider: pending, failed (in the sync dead letters), lastSuccessAt,
 *                                                 refused (removals the provider would not make) and the backfill's progress
 *   retry                                         move every sync dead letter back to the sync queue
 *   reconcile [--provider p] [--apply] [--json]   pull each provider's lists and compare them with Ratchet
 *
 * Providers: SYNC_PROVIDERS (the same variable as the runtime), else the running `npm start`'s; with
 * neither, sync is off: `status` says so, and `reconcile` (without --provider) says so with exit 2.
 * Queues: SYNC_QUEUE_URL / SYNC_DEAD_LETTER_QUEUE_URL (stack outputs SyncQueueUrl and
 * SyncDeadLetterQueueUrl), else the running `npm start`'s, else by name (lib/cli/target.ts).
 * reconcile needs the providers' keys in the environment, as the worker has them (docs/sync.md).
 * Exit codes: 0 done (no drift, or drift repaired), 1 drift found without --apply or a failure, 2 usage.
 */
import { Command } from 'commander';
import { DynamoSuppressionSync } from '../../../lambdas/adapters/dynamodb-suppression-sync.js';
import { DynamoSyncProviders, type ReconcileRun } from '../../../lambdas/adapters/dynamodb-sync-providers.js';
import { type DeadLetter, SqsDeadLetters } from '../../../lambdas/adapters/sqs-dead-letters.js';
import { createSyncTargets, readSyncConfig } from '../../../lambdas/adapters/sync/index.js';
import { DEAD_DUE_MS, laggingProviders } from '../../../lambdas/core/sync/ledger.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../../../lambdas/core/sync/target.js';
import { parseTopicAliases } from '../../../lambdas/core/topics.js';
import type { Context } from '../context.js';
import type { Run } from '../program.js';
import { cliSyncProviders, syncQueueUrls } from '../sync-fast-path.js';
import { reconcile } from './sync-reconcile.js';

const HIDE_SECONDS = 30;

interface ProviderStatus {
  pending: number;
  failed: number;
  refused: number;
  lastSuccessAt: number | null;
  /** The walk that brings a provider new to the table up to date (records read, records queued for it). */
  backfill: { state: 'not started' } | { state: 'running' | 'done'; scanned: number; marked: number; doneAt?: number };
  /** The latest finished `sync reconcile` against this provider, or null. */
  lastReconcile: ReconcileRun | null;
}

export function syncCommand(ctx: Context, run: Run): Command {
  const command = new Command('sync').description('push suppressions to the providers: status, dead letters, drift');
  command
    .command('status')
    .description('per provider: pending changes, failed ones (sync dead letters) and the last success')
    .option('--json', 'one JSON object, times as epoch ms')
    .action(
      run(async (options: { json?: boolean }) => {
        const providers = cliSyncProviders(ctx.env, ctx.target);
        if (providers.length === 0) {
          ctx.io.out(options.json ? JSON.stringify({ sync: 'off', providers: {} }) : SYNC_OFF);
          return 0;
        }
        const ledger = new DynamoSuppressionSync(ctx.doc, ctx.target.suppressionTable, Date.now, {
          scanWhenIndexMissing: ctx.target.kind === 'local',
        });
        const facts = new DynamoSyncProviders(ctx.doc, ctx.target.inboxTable);
        const out: Record<string, ProviderStatus> = {};
        for (const p of providers)
          out[p] = {
            pending: 0,
            failed: 0,
            refused: 0,
            lastSuccessAt: null,
            backfill: { state: 'not started' },
            lastReconcile: null,
          };
        // Everything indexed, parked items included: those hold the refused removals.
        await ledger.pending(DEAD_DUE_MS, (items) => {
          for (const item of items) {
            for (const p of laggingProviders(item, providers)) out[p]!.pending++;
            for (const p of providers) out[p]!.refused += item.sync[p]?.refused?.length ? 1 : 0;
          }
          return undefined;
        });
        const dead = await deadLetters(ctx);
        if (dead)
          for (const message of await peekAll(dead)) {
            const p = message.attributes.provider as SyncProviderName;
            if (out[p]) out[p].failed++;
          }
        for (const p of providers) {
          const known = await facts.facts(p);
          out[p]!.lastSuccessAt = known.lastSuccessAt ?? null;
          out[p]!.lastReconcile = known.lastReconcile ?? null;
          if (known.backfill) {
            const { done, scanned, marked, doneAt } = known.backfill;
            out[p]!.backfill = { state: done ? 'done' : 'running', scanned, marked, ...(doneAt ? { doneAt } : {}) };
          }
        }
        if (options.json) ctx.io.out(JSON.stringify({ providers: out }));
        else {
          for (const [p, s] of Object.entries(out)) {
            const b = s.backfill;
            const backfill = b.state === 'not started' ? b.state : `${b.state}, ${b.scanned} read, ${b.marked} queued`;
            ctx.io.out(
              `${p.padEnd(9)} pending ${s.pending}  failed ${s.failed}  refused ${s.refused}  lastSuccessAt ${s.lastSuccessAt === null ? 'never' : new Date(s.lastSuccessAt).toISOString()}  backfill ${backfill}  lastReconcile ${reconcileText(s.lastReconcile)}`,
            );
          }
        }
        return 0;
      }),
    );
  command
    .command('retry')
    .description('move every message in the sync dead letters back to the sync queue')
    .action(
      run(async () => {
        const dead = await deadLetters(ctx);
        const queueUrl = await resolved(syncQueueUrls(ctx.target, () => ctx.sqs).queueUrl);
        if (!dead || !queueUrl)
          throw new Error(
            'no sync queue found: set SYNC_QUEUE_URL and SYNC_DEAD_LETTER_QUEUE_URL (stack outputs SyncQueueUrl and SyncDeadLetterQueueUrl)',
          );
        let moved = 0;
        for (let batch = await dead.receive(HIDE_SECONDS); batch.length > 0; batch = await dead.receive(HIDE_SECONDS)) {
          for (const message of batch) {
            await dead.moveTo(message, queueUrl);
            moved++;
          }
        }
        ctx.io.out(`moved ${moved} sync dead letters back to the sync queue`);
        return 0;
      }),
    );
  command
    .command('reconcile')
    .description(
      "pull each provider's suppression lists, compare with Ratchet; --apply repairs both ways (never lifts a suppression)",
    )
    .option('--provider <provider>', `only this provider (${SYNC_PROVIDER_NAMES.join(', ')})`)
    .option('--apply', 'push what a provider lacks, import what Ratchet lacks (actor sync:<provider>)')
    .option('--json', '{"providers": {...}} on one line')
    .action(
      run(async (options: { provider?: string; apply?: boolean; json?: boolean }) => {
        if (options.provider !== undefined && !(SYNC_PROVIDER_NAMES as readonly string[]).includes(options.provider)) {
          return ctx.usage(`--provider must be one of ${SYNC_PROVIDER_NAMES.join(', ')}, got "${options.provider}"`);
        }
        const providers = options.provider ?? cliSyncProviders(ctx.env, ctx.target).join(',');
        if (providers === '') return ctx.usage(`${SYNC_OFF}: nothing to reconcile (or name one with --provider)`);
        const env = { ...ctx.env, SYNC_PROVIDERS: providers };
        const config = readSyncConfig(env);
        if (!config.ok) throw new Error(config.problems.join('; '));
        // Postmark streams used as topics (TOPIC_ALIASES) are pulled too, as scopes.
        const topicStreams = [...parseTopicAliases(ctx.env.TOPIC_ALIASES).keys()]
          .filter((c) => c.startsWith('postmark:stream:'))
          .map((c) => c.slice('postmark:stream:'.length));
        const pm = config.config.postmark;
        // A 429 is time to wait, page after page or push after push, never a failed run; said on stderr.
        const targets = createSyncTargets(
          pm ? { ...config.config, postmark: { ...pm, topicStreams } } : config.config,
          {
            rateLimitWaits: RECONCILE_RATE_LIMIT_WAITS,
            rateLimitMaxWaitMs: RECONCILE_RATE_LIMIT_MAX_WAIT_MS,
            onRateLimitWait: (limit) =>
              ctx.io.err(`${limit.provider} rate limit: waiting until ${new Date(limit.retryAtMs).toISOString()}`),
          },
        );
        const report = await reconcile(ctx, targets, { apply: options.apply === true });
        if (options.json) ctx.io.out(JSON.stringify({ providers: report.providers }));
        else {
          for (const [p, drift] of Object.entries(report.providers)) {
            ctx.io.out(
              `${p}: ${drift.missingAtProvider.length} missing at the provider, ${drift.missingInRatchet.length} missing in Ratchet${drift.informational.length ? `, ${drift.informational.length} informational` : ''}`,
            );
            for (const m of drift.missingAtProvider) ctx.io.out(`  missing at ${p}: ${m.email} (${m.list})`);
            for (const m of drift.missingInRatchet)
              ctx.io.out(`  missing in Ratchet: ${m.email} (${m.list}${m.reason ? `, ${m.reason}` : ''})`);
            for (const m of drift.refused) ctx.io.out(`  refused removal at ${p}: ${m.email} (${m.list}: ${m.why})`);
          }
          if (options.apply)
            ctx.io.out(
              `applied: ${report.pushed} pushed, ${report.imported} imported${report.failed ? `, ${report.failed} refused by the provider` : ''}`,
            );
        }
        const drift = Object.values(report.providers).some(
          (d) => d.missingAtProvider.length + d.missingInRatchet.length > 0,
        );
        return (drift && !options.apply) || report.failed > 0 ? 1 : 0;
      }),
    );
  return command;
}

/** How many 429s in a row one provider call of `reconcile` waits out before the run fails. */
const RECONCILE_RATE_LIMIT_WAITS = 20;
/** The longest one 429's pause `reconcile` waits out; a longer one (a daily quota) fails the run at once. */
const RECONCILE_RATE_LIMIT_MAX_WAIT_MS = 5 * 60_000;

/** What `status` and `reconcile` say when no provider is configured. */
export const SYNC_OFF =
  "sync is off: no provider is configured (set SYNC_PROVIDERS as the stack's syncProviders, or start `npm start` with it)";

/** The URL a resolver gives, or undefined when there is none or the lookup fails (the caller says what to set). */
async function resolved(url: (() => Promise<string>) | undefined): Promise<string | undefined> {
  return url ? url().catch(() => undefined) : undefined;
}

async function deadLetters(ctx: Context): Promise<SqsDeadLetters | undefined> {
  const url = await resolved(syncQueueUrls(ctx.target, () => ctx.sqs).deadLetterUrl);
  return url ? new SqsDeadLetters(ctx.sqs, url) : undefined;
}

/** Every dead letter, each made visible again at once (SQS has no peek). */
async function peekAll(queue: SqsDeadLetters): Promise<DeadLetter[]> {
  const seen: DeadLetter[] = [];
  try {
    for (let batch = await queue.receive(HIDE_SECONDS); batch.length > 0; batch = await queue.receive(HIDE_SECONDS))
      seen.push(...batch);
  } finally {
    for (const message of seen) await queue.release(message).catch(() => undefined);
  }
  return seen;
}

function reconcileText(run: ReconcileRun | null): string {
  if (run === null) return 'never';
  return `${new Date(run.at).toISOString()} (drift ${run.drift}${run.applied ? ', applied' : ''})`;
}
