/**
 * `ratchet sync status|retry|reconcile`: the sync side, for the operator.
 *
 *   status [--json]                               per provider: pending, failed (in the sync dead letters), lastSuccessAt,
 *                                                 refused (removals the provider would not make) and the backfill's progress
 *   retry                                         move every sync dead letter back to the sync queue
 *   reconcile [--provider p] [--apply] [--json]   pull each provider's lists and compare them with Ratchet
 *
 * Providers: SYNC_PROVIDERS (the same variable as the runtime), else the running `npm start`'s; with
 * neither, sync is off: `status` says so, and `reconcile` (without --provider) says so with exit 2; on AWS
 * (the CLI cannot read the stack) the line says to set SYNC_PROVIDERS from the stack output SyncProviders.
 * Queues: SYNC_QUEUE_URL / SYNC_DEAD_LETTER_QUEUE_URL (stack outputs SyncQueueUrl and
 * SyncDeadLetterQueueUrl), else the running `npm start`'s, else by name (lib/cli/target.ts).
 * reconcile needs the providers' keys in the environment, as the worker has them (docs/sync.md).
 * Exit codes: 0 done (no drift, or drift repaired), 1 drift found without --apply or a failure, 2 usage or
 * a sync setting set wrong (lib/cli/sync-settings.ts), said before anything is read, written or pushed.
 */
import { Command } from 'commander';
import type { DeadLetter } from '../../../lambdas/adapters/sqs-dead-letters.js';
import { createSyncTargets } from '../../../lambdas/adapters/sync/index.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../../../lambdas/core/sync/target.js';
import { SYNC_RECONCILE } from '../../sync-definitions.js';
import type { Context } from '../context.js';
import type { Run } from '../program.js';
import { cliSyncProviders } from '../sync-fast-path.js';
import { checkSyncSettings } from '../sync-settings.js';
import { syncDeadLetters, syncQueueUrl } from './sync-queues.js';
import { reconcile, reconcilePauses } from './sync-reconcile.js';
import { driftJson } from './sync-reconcile-json.js';
import { HIDE_SECONDS, syncStatus } from './sync-status.js';

export function syncCommand(ctx: Context, run: Run): Command {
  const command = new Command('sync').description('push suppressions to the providers: status, dead letters, drift');
  command
    .command('status')
    .description('per provider: pending changes, failed ones (sync dead letters) and the last success')
    .option('--json', 'one JSON object, times as epoch ms')
    .action(
      run(async (options: { json?: boolean }) => {
        const providers = cliSyncProviders(ctx.env, ctx.target);
        checkSyncSettings(ctx.env, providers, { callsProviders: false });
        if (providers.length === 0) {
          ctx.io.out(options.json ? JSON.stringify({ sync: 'off', providers: {} }) : syncOff(ctx));
          // The JSON has no room for the fix; on AWS, where "off" may be wrong, stderr says it.
          if (options.json && ctx.target.kind === 'aws') ctx.io.err(`note: ${SYNC_OFF_ON_AWS}`);
          return 0;
        }
        return syncStatus(ctx, providers, options.json === true);
      }),
    );
  command
    .command('retry')
    .description('move every message in the sync dead letters back to the sync queue')
    .action(
      run(async () => {
        checkSyncSettings(ctx.env, cliSyncProviders(ctx.env, ctx.target), { callsProviders: false });
        const dead = await syncDeadLetters(ctx);
        if (!dead.ok) return problem(ctx, dead.problem);
        const queue = await syncQueueUrl(ctx);
        if (!queue.ok) return problem(ctx, queue.problem);
        const [from, queueUrl] = [dead.value, queue.value];
        // Only what was dead-lettered before this run: while the cause persists, the worker dead-letters
        // the moved messages again at once, and chasing those would never end.
        const startedAt = ctx.now();
        const again = new Map<string, DeadLetter>();
        let moved = 0;
        // A long poll (the adapter's default): a short one may answer empty while dead letters wait.
        const next = () => from.receive(HIDE_SECONDS);
        try {
          for (let batch = await next(); batch.length > 0; batch = await next()) {
            for (const message of batch) {
              if (message.sentAt !== undefined && message.sentAt >= startedAt) again.set(message.id, message);
              else {
                await from.moveTo(message, queueUrl);
                moved++;
              }
            }
          }
        } finally {
          for (const message of again.values()) await from.release(message).catch(() => undefined);
        }
        if (again.size > 0)
          ctx.io.err(
            `note: ${again.size} dead-lettered again while this ran, left in the dead letters: the cause persists (\`ratchet sync status\`, the record's sync.<provider>.failed)`,
          );
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
        const providers = options.provider
          ? [options.provider as SyncProviderName]
          : cliSyncProviders(ctx.env, ctx.target);
        if (providers.length === 0)
          return ctx.usage(`${syncOff(ctx)}: nothing to reconcile (or name one with --provider)`);
        // Every setting checked (exit 2) before a provider is called or anything is written.
        const { config, aliases, limits } = checkSyncSettings(ctx.env, providers, {
          callsProviders: true,
        });
        // Postmark streams used as topics (TOPIC_ALIASES) are pulled too, as scopes.
        const topicStreams = [...aliases.keys()]
          .filter((c) => c.startsWith('postmark:stream:'))
          .map((c) => c.slice('postmark:stream:'.length));
        const pm = config.postmark;
        // A 429 is time to wait, page after page or push after push, never a failed run; said on stderr, and
        // written to the worker's shared pause so the worker backs off too.
        const pauses = reconcilePauses(ctx);
        const targets = createSyncTargets(pm ? { ...config, postmark: { ...pm, topicStreams } } : config, {
          rateLimitWaits: SYNC_RECONCILE.rateLimitWaits,
          rateLimitMaxWaitMs: SYNC_RECONCILE.rateLimitMaxWaitMs,
          onRateLimitWait: (limit) => {
            pauses.heard(limit);
            ctx.io.err(`${limit.provider} rate limit: waiting until ${new Date(limit.retryAtMs).toISOString()}`);
          },
        });
        const report = await reconcile(ctx, targets, { apply: options.apply === true, limits, pauses });
        if (options.json) ctx.io.out(JSON.stringify({ providers: driftJson(report.providers) }));
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

/** What `status` and `reconcile` say when no provider is configured. */
export const SYNC_OFF =
  "sync is off: no provider is configured (set SYNC_PROVIDERS as the stack's syncProviders, or start `npm start` with it)";
/**
 * The same on AWS, where the CLI cannot read the stack's configuration: a stack that syncs looks off
 * until the operator copies its providers from the stack output.
 */
export const SYNC_OFF_ON_AWS =
  "sync is off: SYNC_PROVIDERS is not set, and on AWS the CLI cannot read the stack's providers: set SYNC_PROVIDERS from the stack output SyncProviders (a stack without that output syncs nothing)";

function syncOff(ctx: Context): string {
  return ctx.target.kind === 'aws' ? SYNC_OFF_ON_AWS : SYNC_OFF;
}

/** A queue that could not be found: exit 1 with the one line saying which, where, why, and what to set. */
function problem(ctx: Context, text: string): number {
  ctx.io.err(`error: ${ctx.action}: ${text}`);
  return 1;
}
