/**
 * Shared by the backfill and backlog tests: a table with records that no outbox marker points at (as a
 * table written before sync existed, or whose changes were all pushed to the providers then
 * configured), what each provider fake holds of an address, and, for the tests that restart the
 * runtime with other settings, stacks over one kept data dir, a poll with a deadline and a settled check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { startTestStack, type TestStack } from './harness.js';

export const ALIASES = 'sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter';

/** Every tenth address only left the newsletter (a topic opt-out); the rest are suppressed. */
export const isTopicOnly = (i: number) => i % 10 === 0;
export const addressOf = (prefix: string, i: number) => `${prefix}${i}@example.com`;

/**
 * `count` records written the way the store writes them, then stripped of the sync fields and put back
 * at schema 4, the shape a table had before sync: nothing in the outbox, nothing pushed anywhere.
 */
export async function writeRecordsBeforeSync(stack: TestStack, prefix: string, count: number): Promise<string[]> {
  const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings({}));
  const emails: string[] = [];
  for (let i = 0; i < count; i++) {
    const email = addressOf(prefix, i);
    emails.push(email);
    if (isTopicOnly(i))
      await store.apply({
        provider: 'ses',
        eventId: `topic-${email}`,
        recipient: email,
        kind: 'unsubscribe',
        occurredAt: Date.now(),
        detail: {},
        topic: 'newsletter',
      });
    else await store.suppress(email, { actor: 'ops', reason: 'old list', at: Date.now() });
    await stack.clients.doc.send(
      new UpdateCommand({
        TableName: stack.config.suppressionTable,
        Key: { email },
        UpdateExpression: 'REMOVE syncPending, syncDue, syncChange SET schemaVersion = :v',
        ExpressionAttributeValues: { ':v': 4 },
      }),
    );
  }
  return emails;
}

/** Whether each fake holds what it should of address `i` (a topic opt-out only where the topic has a scope). */
export function heldBy(fakes: ProviderFakes, email: string, topicOnly: boolean): Record<string, boolean> {
  if (topicOnly)
    return {
      sendgrid: fakes.sendgrid.group(7).includes(email),
      postmark: fakes.postmark.stream('broadcast').some((e) => e.email === email),
    };
  return {
    ses: fakes.ses.get(email) !== undefined,
    sendgrid: fakes.sendgrid.list('unsubscribes').some((i) => i.email === email),
    postmark: fakes.postmark.stream('outbound').some((e) => e.email === email),
    mailgun: fakes.mailgun.domains.every((d) => fakes.mailgun.list(d, 'unsubscribes').some((e) => e.address === email)),
    resend: fakes.resend.entries().some((e) => e.email === email),
  };
}

/** How many successful POSTs to the SendGrid fake named `email` (a global or a group suppression). */
export function sendgridPushes(fakes: ProviderFakes, email: string): number {
  return fakes.sendgrid.calls.filter((c) => c.method === 'POST' && c.status < 300 && c.body.includes(`"${email}"`))
    .length;
}

/** Polls `done` every 250 ms until it holds; past `timeoutMs`, fails with `what()` (read only then). */
export async function until(
  done: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: () => string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`not in time: ${what()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * For a describe block: one set of provider fakes and one data dir kept across stacks, as a restart with
 * other settings would see them. `start` runs a stack on it with its sync loops (env over the fakes'),
 * `stop` stops one; whatever is left running is stopped after the block.
 */
export function restartingStacks(dirPrefix: string) {
  const stacks: TestStack[] = [];
  const shared = { fakes: undefined as unknown as ProviderFakes, dataDir: '' };
  beforeAll(async () => {
    shared.fakes = await startProviderFakes();
    shared.dataDir = mkdtempSync(join(tmpdir(), dirPrefix));
  });
  afterAll(async () => {
    for (const stack of stacks) await stack.stop().catch(() => undefined);
    await shared.fakes?.close();
    if (shared.dataDir) rmSync(shared.dataDir, { recursive: true, force: true });
  });
  return {
    fakes: () => shared.fakes,
    /** A stack with no sync and no fakes, for writing records before sync. */
    seed: () => startTestStack({ dataDir: shared.dataDir, persist: true, env: {} }),
    async start(env: Record<string, string>): Promise<TestStack> {
      const stack = await startTestStack({
        dataDir: shared.dataDir,
        persist: true,
        env: { ...shared.fakes.env, ...env },
      });
      stacks.push(stack);
      stack.sync!.start();
      return stack;
    },
    async stop(stack: TestStack): Promise<void> {
      await stack.stop();
      stacks.splice(stacks.indexOf(stack), 1);
    },
  };
}

/** Whether every one of `emails` has no outbox marker left. */
export async function settled(stack: TestStack, emails: readonly string[]): Promise<boolean> {
  return (await Promise.all(emails.map((e) => stack.record(e)))).every((r) => r?.syncPending === undefined);
}
