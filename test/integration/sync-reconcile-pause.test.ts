/**
 * `ratchet sync reconcile` shares the sync worker's 429 pause, on the local runtime against the SendGrid
 * fake: the `sync#sendgrid` row in the inbox table that the worker's gate reads (DynamoSyncProviders).
 * While that row says paused, reconcile calls nothing (no list page, no push) until the pause ends; a 429
 * reconcile meets goes into the same row, so the worker backs off too instead of learning it again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { DynamoSyncProviders } from '../../lambdas/adapters/dynamodb-sync-providers.js';
import type { ProviderFakes } from '../fakes/providers/index.js';
import { ratchet, type TestStack } from './harness.js';
import { startReconcileStack, stopReconcileStack } from './sync-reconcile-support.js';

describe('sync reconcile and the shared 429 pause', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;
  let env: Record<string, string>;
  let row: DynamoSyncProviders;

  beforeAll(async () => {
    ({ fakes, stack, env } = await startReconcileStack({}));
    row = new DynamoSyncProviders(stack.clients.doc, stack.config.inboxTable);
  }, 90_000);
  afterAll(() => stopReconcileStack({ fakes, stack }));

  const suppress = (email: string) =>
    new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable).suppress(email, {
      actor: 'ops',
      reason: 'seed',
      at: Date.now(),
    });

  it('started while the row says paused, it calls SendGrid only once the pause has ended', async () => {
    const email = 'paused-reconcile@example.com';
    await suppress(email);
    fakes.sendgrid.clearCalls();
    const pausedUntil = Date.now() + 3_000;
    await row.pause('sendgrid', pausedUntil);
    const result = await ratchet(env, 'sync', 'reconcile', '--provider', 'sendgrid', '--apply');
    const calls = fakes.sendgrid.calls;
    expect(calls.length).toBeGreaterThan(0);
    // Every call, the first list page included, came after the pause.
    expect(calls.filter((c) => c.at < pausedUntil)).toEqual([]);
    expect(calls.some((c) => c.method !== 'GET' && c.body.includes(email))).toBe(true);
    expect(result.code).toBe(0);
    // Said on stderr, as a 429's wait is.
    expect(result.err).toContain(
      `sendgrid is paused (a 429 the sync worker shares): waiting until ${new Date(pausedUntil).toISOString()}`,
    );
  }, 60_000);

  it('a 429 it meets goes into the row, for the worker', async () => {
    const before = (await row.facts('sendgrid')).pausedUntil ?? 0;
    // The first list page answers 429; SendGrid names the end of the window (epoch seconds).
    const resetAt = Math.ceil(Math.max(Date.now(), before) / 1000) + 2;
    fakes.sendgrid.rateLimit(1, { 'X-RateLimit-Reset': String(resetAt) });
    fakes.sendgrid.clearCalls();
    const result = await ratchet(env, 'sync', 'reconcile', '--provider', 'sendgrid');
    expect(result.err).toContain('sendgrid rate limit: waiting until');
    expect(fakes.sendgrid.calls[0]!.status).toBe(429);
    const after = (await row.facts('sendgrid')).pausedUntil;
    expect(after).toBe(resetAt * 1000);
    expect(after).toBeGreaterThan(before);
  }, 60_000);
});
