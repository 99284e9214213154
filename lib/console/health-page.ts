/**
 * Health: the queues and dead letters with the command that redrives each, sync per provider (the
 * CLI's own `sync status`, run in-process), the last event received per provider, and `doctor`'s
 * checks (its own functions). Each section answers on its own: one that fails says why, the others show.
 */
import { resolve } from 'node:path';
import { Command } from 'commander';
import { DeploymentProbe } from '../../lambdas/adapters/deployment-probe.js';
import { checkNames } from '../../lambdas/adapters/environment.js';
import { SYNC_QUEUE_VARIABLES } from '../../lambdas/adapters/wiring/sync-fast-path.js';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { UNSUBSCRIBE_PROVIDER } from '../../lambdas/core/unsubscribe/provider.js';
import { diagnose } from '../cli/commands/doctor.js';
import { SES_DEAD_LETTER_QUEUE_DEFAULT } from '../cli/commands/ses.js';
import { syncCommand } from '../cli/commands/sync.js';
import { Context } from '../cli/context.js';
import { execute, runner } from '../cli/program.js';
import { explainFailure, SettingError } from '../cli/target.js';
import { CONSOLE } from '../definitions.js';
import { readState } from '../local/state.js';
import { type Html, html, time } from './html.js';
import { describeTarget, type Route, type Services } from './services.js';

export const healthPage: Route = async (_request, services) => {
  const sections = await Promise.all([queues(services), sync(services), lastEvents(services), doctor(services)]);
  return { page: { title: 'Health', section: 'health', target: describeTarget(services), body: html`${sections}` } };
};

async function guarded(title: string, services: Services, build: () => Promise<Html>): Promise<Html> {
  try {
    return html`<section aria-labelledby="${slug(title)}"><h2 id="${slug(title)}">${title}</h2>${await build()}</section>`;
  } catch (error) {
    let why: string;
    try {
      // A variable set wrong is the operator's to correct, not the target's to restart: its own line says which.
      why = error instanceof SettingError ? error.message : explainFailure(title, services.ctx.target, error);
    } catch (targetError) {
      why = (targetError as Error).message;
    }
    return html`<section aria-labelledby="${slug(title)}"><h2 id="${slug(title)}">${title}</h2><p class="problem">${why}</p></section>`;
  }
}

const slug = (title: string) => `h-${title.toLowerCase().replace(/[^a-z]+/g, '-')}`;

/** A queue to probe, or the line saying why its URL is none (checked as `npm start`, the CLI and the worker check it). */
type SyncQueue = { url?: string; problem?: string };

function syncQueueUrls(services: Services): { queue: SyncQueue; deadLetters: SyncQueue } {
  const { ctx } = services;
  const state = ctx.target.kind === 'local' ? readState(resolve(ctx.env.RATCHET_DATA_DIR ?? '.data')) : undefined;
  const read = (variable: keyof typeof SYNC_QUEUE_VARIABLES, fromState: string | undefined): SyncQueue => {
    const name = SYNC_QUEUE_VARIABLES[variable];
    const [problem] = checkNames(ctx.env, [name]);
    return problem ? { problem } : { url: ctx.env[name] || fromState };
  };
  return { queue: read('queueUrl', state?.syncQueueUrl), deadLetters: read('deadLetterUrl', state?.syncDeadLetterUrl) };
}

function queues(services: Services): Promise<Html> {
  return guarded('Queues and dead letters', services, async () => {
    const { target, sqs } = services.ctx;
    // Only the probe's queue depth is used here: it needs SQS alone.
    const probe = new DeploymentProbe({ sqs } as ConstructorParameters<typeof DeploymentProbe>[0]);
    const sync = syncQueueUrls(services);
    const list: Array<[string, SyncQueue, string]> = [
      ['events queue', { url: target.queueUrl }, 'none: the consumer drains it'],
      ['dead-letter queue', { url: target.deadLetterUrl }, 'npx ratchet dlq redrive'],
      [
        'SES dead-letter queue',
        { url: target.sesDeadLetterQueue ?? SES_DEAD_LETTER_QUEUE_DEFAULT },
        'npx ratchet ses redrive',
      ],
      ['sync queue', sync.queue, 'none: the sync worker drains it'],
      ['sync dead letters', sync.deadLetters, 'npx ratchet sync retry'],
    ];
    const rows = await Promise.all(
      list.map(async ([name, { url: queue, problem }, redrive]) => {
        if (problem)
          return html`<tr><th scope="row">${name}</th><td colspan="2" class="problem">${problem}</td><td><code>${redrive}</code></td></tr>`;
        if (!queue) return html`<tr><th scope="row">${name}</th><td colspan="2">not configured</td><td>—</td></tr>`;
        try {
          const depth = await probe.queueDepth(queue);
          return html`<tr><th scope="row">${name}</th><td>${depth.visible}</td><td>${depth.inFlight}</td><td><code>${redrive}</code></td></tr>`;
        } catch (error) {
          return html`<tr><th scope="row">${name}</th><td colspan="2">not readable: ${(error as Error).name}</td><td><code>${redrive}</code></td></tr>`;
        }
      }),
    );
    return html`<div class="scroll"><table><thead><tr><th scope="col">Queue</th><th scope="col">Waiting</th><th scope="col">In flight</th><th scope="col">Redrive with</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  });
}

interface SyncStatus {
  providers: Record<
    string,
    {
      /** null: not readable (the index is being built, the dead letters were not found). */
      pending: number | null;
      failed: number | null;
      refused: number | null;
      lastSuccessAt: number | null;
      lastReconcile: { at: number; drift: number; applied: boolean } | null;
    }
  >;
}

function sync(services: Services): Promise<Html> {
  return guarded('Sync per provider', services, async () => {
    const out: string[] = [];
    const err: string[] = [];
    const ctx = new Context(
      services.ctx.env,
      { out: (l) => out.push(l), err: (l) => err.push(l), progressTty: false },
      services.now,
    );
    const state = { code: 0 };
    const program = new Command('ratchet').addCommand(syncCommand(ctx, runner(ctx, state)));
    const code = await execute(program, ['sync', 'status', '--json'], ctx, state);
    // Exit 2: a sync variable set wrong (the CLI's own line, without its `error: `).
    if (code === 2) throw new SettingError(err.join(' ').replace(/^error: /, ''));
    if (code !== 0) throw new Error(err.join(' ') || `sync status exited ${code}`);
    const status = JSON.parse(out.join('\n')) as SyncStatus;
    const rows = Object.entries(status.providers).map(
      ([p, s]) =>
        html`<tr><th scope="row">${p}</th><td>${s.pending ?? 'unknown'}</td><td>${s.failed ?? 'unknown'}</td><td>${s.refused ?? 'unknown'}</td><td>${time(s.lastSuccessAt ?? undefined)}</td><td>${reconcileCell(s.lastReconcile)}</td></tr>`,
    );
    return html`<div class="scroll"><table><thead><tr><th scope="col">Provider</th><th scope="col">Pending</th><th scope="col">Failed</th><th scope="col">Refused removals</th><th scope="col">Last success</th><th scope="col">Last reconcile</th></tr></thead><tbody>${rows}</tbody></table></div>
<p>Compare with the providers' own lists: <code>npx ratchet sync reconcile</code> (<code>--apply</code> repairs); retry the failed: <code>npx ratchet sync retry</code>.</p>`;
  });
}

/** When the lists were last compared, and what that run found: the drift, and whether it repaired it. */
function reconcileCell(run: SyncStatus['providers'][string]['lastReconcile']): Html {
  if (!run) return html`never`;
  return html`${time(run.at)}, drift ${run.drift}${run.applied ? ', applied' : ''}`;
}

function lastEvents(services: Services): Promise<Html> {
  return guarded('Last event received per provider', services, async () => {
    const now = services.now();
    const found = await services.ctx
      .inbox()
      .newestPerProvider({ nowMs: now, deadlineMs: now + CONSOLE.scanDeadlineMs });
    const names = [...PROVIDERS.map((p) => p.name), UNSUBSCRIBE_PROVIDER.name];
    const rows = names.map(
      (p) =>
        html`<tr><th scope="row">${p}</th><td>${found.receivedAt[p] === undefined ? 'none stored' : time(found.receivedAt[p])}</td></tr>`,
    );
    return html`<div class="scroll"><table><thead><tr><th scope="col">Provider</th><th scope="col">Last event received</th></tr></thead><tbody>${rows}</tbody></table></div>
<p class="muted">From the inbox (rows live until their TTL): ${found.scanned} rows read${found.complete ? '' : html`; <strong>stopped after ${CONSOLE.scanDeadlineMs / 1000} s</strong>, so these times are a lower bound`}.</p>`;
  });
}

const BADGE = { pass: 'active', fail: 'suppressed', warn: 'warn', skip: 'skip' } as const;

function doctor(services: Services): Promise<Html> {
  return guarded('Doctor', services, async () => {
    const results = await diagnose(services.ctx);
    const rows = results.map(
      (r) =>
        html`<tr><td><span class="badge ${BADGE[r.status]}">${r.status}</span></td><th scope="row">${r.check}</th><td>${r.detail}</td><td>${r.fix ?? '—'}</td></tr>`,
    );
    return html`<p class="muted">The checks of <code>npx ratchet doctor</code>.</p><div class="scroll"><table><thead><tr><th scope="col">Result</th><th scope="col">Check</th><th scope="col">Detail</th><th scope="col">Fix</th></tr></thead><tbody>${rows}</tbody></table></div>`;
  });
}
