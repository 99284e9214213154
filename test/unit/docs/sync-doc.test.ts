/** docs/sync.md quotes the shard count, the lease bounds, the backfill budget and the fast path's window: each from where it is defined. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SQS_BATCH_MAX } from '../../../lambdas/adapters/sqs-limits.js';
import { FAST_PATH_GRACE_MS } from '../../../lambdas/adapters/suppression-sync-fields.js';
import { MAX_RATE_LIMIT_PAUSE_MS } from '../../../lambdas/adapters/sync/http.js';
import { SYNC_MAX_BATCH } from '../../../lambdas/adapters/sync/index.js';
import { FAST_PATH_TIMEOUT_MS, FAST_PATH_WINDOW_MS } from '../../../lambdas/adapters/wiring/sync-fast-path.js';
import { SWEEP_INTERVAL_MS, SWEEP_WRITE_CONCURRENCY } from '../../../lambdas/adapters/wiring/sync-sweeper.js';
import { LEASE } from '../../../lambdas/core/sync/lease.js';
import { RETRY_BASE_SECONDS, RETRY_CAP_SECONDS } from '../../../lambdas/core/sync/retry.js';
import {
  DEFAULT_RETRY_HORIZON_SECONDS,
  SYNC_BOOKING_HORIZON_MS,
  SYNC_DEFAULT_LIMITS,
  SYNC_MAX_HOLD_MS,
  SYNC_RULES,
} from '../../../lambdas/core/sync/settings.js';
import { SYNC_PENDING_SHARDS } from '../../../lambdas/core/sync/shard.js';
import type { SyncProviderName } from '../../../lambdas/core/sync/target.js';
import { DEADLINE_MARGIN_MS } from '../../../lambdas/sync-sweeper.js';
import { SYNC_QUEUE, SYNC_RECONCILE, SYNC_SWEEPER, SYNC_WORKER } from '../../../lib/sync-definitions.js';
import {
  formatProviderValues,
  RATE_STEP,
  resolveSyncLimits,
  STACK_LIMIT_RULES,
  SYNC_WORKER_COPIES,
  stackDefault,
} from '../../../lib/sync-limits.js';

const doc = readFileSync(new URL('../../../docs/sync.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('docs/sync.md', () => {
  it('the shard count', () => {
    expect(doc).toContain(`modulo **${SYNC_PENDING_SHARDS}** shards`);
    expect(doc).toContain('The sweeper reads all sixteen');
    expect(SYNC_PENDING_SHARDS).toBe(16);
  });

  it('the lease: factor, grace, bounds; the write bound; the recycle point', () => {
    expect(doc).toContain(
      `\`now + ${LEASE.safety} × (messages ahead of it) / rate + ${LEASE.graceMs / 1000} s\`, at least ${LEASE.minMs / 60_000} minutes and at most ${LEASE.maxMs / 3_600_000} hours`,
    );
    expect(doc).toContain(`writes its leases at most ${SWEEP_WRITE_CONCURRENCY} at a time`);
    expect(doc).toContain(`a sweep reads pages for up to ${SYNC_SWEEPER.timeoutSeconds - DEADLINE_MARGIN_MS / 1000} s`);
    expect(doc).toContain('A wait is a fresh message rather than a hidden one');
    expect(doc).toContain(`redrive policy (${SYNC_QUEUE.maxReceiveCount} receives)`);
  });

  it('a slow provider paces only its own messages: the hold, and the rate to raise', () => {
    expect(doc).toContain(`call for its rate slot at most ${SYNC_MAX_HOLD_MS / 1000} s (\`SYNC_MAX_HOLD_MS\`)`);
    expect(doc).toContain(
      `with SendGrid and Resend at their defaults (${SYNC_DEFAULT_LIMITS.sendgrid.rate} and ${SYNC_DEFAULT_LIMITS.resend.rate} calls a second)`,
    );
    // A full batch of adds is one request at every provider that takes a list (the least cap bounds
    // the batch), and its records one BatchGetItem (100 keys); SQS's largest receive of one-address
    // calls fits in the hold at the default rate of most (SES's does not).
    const listCaps = Object.values(SYNC_MAX_BATCH).filter((cap) => cap > 1);
    expect(SYNC_WORKER.batchSize).toBe(Math.min(...listCaps));
    expect(SYNC_WORKER.batchSize).toBeLessThanOrEqual(100);
    expect(doc).toContain(
      `a full batch (${SYNC_WORKER.batchSize} messages) fits in one request at every provider that takes a list`,
    );
    expect(SYNC_MAX_HOLD_MS).toBeGreaterThanOrEqual((SQS_BATCH_MAX - 1) * (1000 / SYNC_DEFAULT_LIMITS.sendgrid.rate));
    expect(doc).toContain(`fit ${SQS_BATCH_MAX} in the hold at ${SYNC_DEFAULT_LIMITS.sendgrid.rate} calls a second`);
    const sesFits = Math.floor(SYNC_MAX_HOLD_MS / (1000 / SYNC_DEFAULT_LIMITS.ses.rate)) + 1;
    expect(doc).toContain(
      `SES at its default ${SYNC_DEFAULT_LIMITS.ses.rate} a second hands back all but about ${sesFits} of a full batch`,
    );
    expect(doc).toContain(
      'divided by the copies of the worker (one under `npm start`; on AWS the stack divides for you',
    );
  });

  it('the booking horizon: within the largest SQS delay, and long enough for the sweeper to refill the line', () => {
    expect(doc).toContain(
      `Slots are kept at most ${SYNC_BOOKING_HORIZON_MS / 1000} s ahead (\`SYNC_BOOKING_HORIZON_MS\``,
    );
    // SQS DelaySeconds is at most 900 (a turn must be reachable by one delayed send).
    expect(SYNC_BOOKING_HORIZON_MS).toBeLessThanOrEqual(900_000);
    expect(SYNC_BOOKING_HORIZON_MS).toBeGreaterThanOrEqual(3 * SYNC_SWEEPER.scheduleMinutes * 60_000);
    expect(doc).toContain('a change costs at most three messages');
  });

  it("a deployment's limits: the copies, the rounding, the example shares, the stack's defaults, the refusals", () => {
    const aws = doc.slice(
      doc.indexOf('### On AWS: `syncRates` and `syncConcurrency`'),
      doc.indexOf('## Configuration'),
    );
    expect(aws).toContain(`runs up to ${SYNC_WORKER_COPIES} copies of the worker (\`SYNC_WORKER.maxConcurrency\`)`);
    expect(SYNC_WORKER_COPIES).toBe(SYNC_WORKER.maxConcurrency);
    expect(aws).toContain(`a rate to ${RATE_STEP} of a call a second`);
    // The worked example, through the code that makes the shares.
    const { variables, stack } = resolveSyncLimits({ syncRates: ['sendgrid=50'], syncConcurrency: ['sendgrid=17'] }, [
      'sendgrid',
    ]);
    expect(aws).toContain(`\`sendgrid=50\` sets \`SYNC_SENDGRID_RATE=${variables.SYNC_SENDGRID_RATE}\``);
    expect(aws).toContain(
      `\`sendgrid=17\` sets \`SYNC_SENDGRID_CONCURRENCY=${variables.SYNC_SENDGRID_CONCURRENCY}\` (${stack.sendgrid!.concurrency} together)`,
    );
    const d = (p: SyncProviderName) => stackDefault(p);
    expect([d('sendgrid'), d('postmark')].every((x) => JSON.stringify(x) === JSON.stringify(d('mailgun')))).toBe(true);
    expect(aws).toContain(
      `SES ${d('ses').rate} calls a second, SendGrid, Postmark and Mailgun ${d('mailgun').rate}, Resend ${d('resend').rate} (Resend's documented 2/s), and ${d('ses').concurrency}, ${d('sendgrid').concurrency}, ${d('postmark').concurrency}, ${d('mailgun').concurrency} and ${d('resend').concurrency} calls in flight`,
    );
    expect(aws).toContain(
      `more than ${STACK_LIMIT_RULES.rate.max} calls a second or ${STACK_LIMIT_RULES.concurrency.max} in flight (${SYNC_RULES.rate.max} and ${SYNC_RULES.concurrency.max} per copy`,
    );
    expect(aws).toContain(`a rate below ${RATE_STEP * SYNC_WORKER_COPIES}`);
    expect(aws).toContain(`\`resend=1\` cannot be shared between ${SYNC_WORKER_COPIES}`);
    expect(() => resolveSyncLimits({ syncConcurrency: ['resend=1'] }, ['resend'])).toThrow();
    // The example command's SyncRates output.
    const providers: SyncProviderName[] = ['ses', 'sendgrid', 'resend'];
    expect(aws).toContain('-c syncProviders=ses,sendgrid,resend -c syncRates=sendgrid=50,ses=14');
    const example = resolveSyncLimits({ syncRates: ['sendgrid=50', 'ses=14'] }, providers);
    expect(aws).toContain(`in the form the keys take (\`${formatProviderValues(example.stack, 'rate', providers)}\`)`);
  });

  it('the backfill budget', () => {
    expect(doc).toContain(`(\`SYNC_<PROVIDER>_RATE\` × ${SWEEP_INTERVAL_MS / 1000} s, one worker copy's rate)`);
  });

  it("a 429's longest pause", () => {
    expect(doc).toContain(`reset header), at most ${MAX_RATE_LIMIT_PAUSE_MS / 3_600_000} hour ahead`);
  });

  it("reconcile's 429 limits: how many waits in a row, and the longest pause it waits out", () => {
    const reconcile = doc.slice(doc.indexOf('## Reconcile'), doc.indexOf('### By scope'));
    expect(reconcile).toContain(`up to ${SYNC_RECONCILE.rateLimitWaits} in a row on one call`);
    expect(reconcile).toContain(
      `a 429 naming a pause longer than ${SYNC_RECONCILE.rateLimitMaxWaitMs / 60_000} minutes`,
    );
  });

  it("the fast path's batching window", () => {
    expect(doc).toContain(`Changes written within ${FAST_PATH_WINDOW_MS} ms of each other`);
  });

  it("the fast path's bound on a send", () => {
    expect(doc).toContain(`has not finished after ${FAST_PATH_TIMEOUT_MS / 1000} s (\`FAST_PATH_TIMEOUT_MS\``);
  });

  it('the marker, the worker, the retries and the per-provider defaults', () => {
    expect(doc).toContain(`\`syncDue = now + ${FAST_PATH_GRACE_MS / 1000} s\``);
    expect(doc).toContain(
      `batches of up to ${SYNC_WORKER.batchSize} gathered within a ${SYNC_WORKER.maxBatchingWindowSeconds} s batching window`,
    );
    expect(doc).toContain(`runs at most ${SYNC_WORKER.maxConcurrency} copies of the worker`);
    expect(SYNC_SWEEPER.scheduleMinutes).toBe(1);
    expect(doc).toContain('Every minute (EventBridge schedule on AWS');
    const [base, cap] = [RETRY_BASE_SECONDS, RETRY_CAP_SECONDS / 60];
    expect(doc).toContain(`${base} s, ${base * 2} s, ${base * 4} s ... capped at ${cap} min`);
    expect(doc).toContain(`default ${DEFAULT_RETRY_HORIZON_SECONDS})`);
    expect(doc).toContain(`(SQS keeps it ${SYNC_QUEUE.retentionDays} days)`);
    const l = SYNC_DEFAULT_LIMITS;
    expect([l.sendgrid, l.postmark].every((x) => JSON.stringify(x) === JSON.stringify(l.mailgun))).toBe(true);
    expect(doc).toContain(
      `defaults: SES ${l.ses.concurrency} / ${l.ses.rate}, SendGrid, Postmark and Mailgun ${l.mailgun.concurrency} / ${l.mailgun.rate}, Resend ${l.resend.concurrency} / ${l.resend.rate}`,
    );
  });
});
