/**
 * A lapsed lease on the local stack (dynalite, fauxqs, the real SendGrid adapter against its fake): the
 * sweep's first message for a change was pushed, and the answer never recorded (the worker died), so
 * the change is still pending. The lease the sweep wrote is a half millisecond in DynamoDB; the next
 * sweep finds it lapsed and sends the item again with `recheck`, and the worker asks SendGrid (a GET)
 * before pushing: the provider already holds it, so the answer is recorded and nothing is pushed twice.
 */
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { FAST_PATH_GRACE_MS } from '../../lambdas/adapters/suppression-sync-fields.js';
import { SendGridSyncTarget } from '../../lambdas/adapters/sync/sendgrid.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { wasLeased } from '../../lambdas/core/sync/lease.js';
import { parseSyncMessage } from '../../lambdas/core/sync/message.js';
import { type ProviderFakes, startProviderFakes } from '../fakes/providers/index.js';
import { startTestStack, type TestStack } from './harness.js';

const EMAIL = 'lapsed@example.com';

describe('a lapsed lease after a push whose answer was lost', () => {
  let fakes: ProviderFakes;
  let stack: TestStack;

  beforeAll(async () => {
    fakes = await startProviderFakes();
    stack = await startTestStack({ env: { ...fakes.env, SYNC_PROVIDERS: 'sendgrid' } });
  });
  afterAll(async () => {
    await stack?.stop();
    await fakes?.close();
  });

  it('the next sweep sends it with recheck, and the worker records what SendGrid holds without pushing again', async () => {
    const sync = stack.sync!;
    const store = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable, policyFromSettings({}));
    await store.suppress(EMAIL, { actor: 'ops', reason: 'test', at: Date.now() });
    const receive = async () =>
      (
        await stack.clients.sqs.send(
          new ReceiveMessageCommand({ QueueUrl: sync.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }),
        )
      ).Messages ?? [];
    // The fast-path message is lost; the first sweep sends one, without recheck, and leases the marker.
    expect(await sync.sweep(Date.now() + FAST_PATH_GRACE_MS)).toBe(1);
    const first = await receive();
    expect(first.map((m) => parseSyncMessage(m.Body!))).toEqual([{ email: EMAIL, provider: 'sendgrid' }]);
    await stack.clients.sqs.send(
      new DeleteMessageCommand({ QueueUrl: sync.queueUrl, ReceiptHandle: first[0]!.ReceiptHandle! }),
    );
    const leasedDue = (await sync.worker.ledger.read(EMAIL))!.due!;
    expect(wasLeased(leasedDue)).toBe(true);
    // A worker pushed it (SendGrid holds it) and died before recording the answer; its message is gone.
    const record = (await sync.worker.ledger.read(EMAIL))!.record;
    await new SendGridSyncTarget({ apiKey: fakes.sendgrid.apiKey, apiUrl: fakes.sendgrid.url }).apply({
      op: 'suppress',
      email: EMAIL,
      reason: record.reason!,
    });
    fakes.sendgrid.clearCalls();
    // The lease lapses: the next sweep sends it again, with recheck.
    expect(await sync.sweep(leasedDue + 1)).toBe(1);
    expect(await sync.pollOnce(1)).toBe(1);
    expect(fakes.sendgrid.calls.map((c) => `${c.method} ${c.path}`)).toEqual([
      `GET /v3/asm/suppressions/global/${encodeURIComponent(EMAIL)}`,
    ]);
    const after = await sync.worker.ledger.read(EMAIL);
    expect(after!.sync.sendgrid).toMatchObject({ reason: record.reason, lists: ['global_unsubscribes'], change: 1 });
    expect(after!.due).toBeUndefined();
  });
});
