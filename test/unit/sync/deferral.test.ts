/**
 * What the worker does with each kind of hand-back (lambdas/handlers/sync-worker-handler.ts,
 * core/sync/push.ts recordDeferral): a reserved slot is sent again carrying its `turn`; a backlog past
 * the booking horizon leaves the change on its outbox marker, due when the gate said, for the sweeper;
 * a 429 spends the turn. None of them is a retry.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { TransientError } from '../../../lambdas/core/errors.js';
import { leased, wasLeased } from '../../../lambdas/core/sync/lease.js';
import { DEAD_DUE_MS } from '../../../lambdas/core/sync/ledger.js';
import {
  encodeSyncMessage,
  parseSyncMessage,
  type SyncMessage,
  SyncSendError,
} from '../../../lambdas/core/sync/message.js';
import {
  SyncProviderBacklogError,
  SyncProviderBusyError,
  type SyncProviderName,
  SyncRateLimitedError,
} from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { createSyncWorkerHandler, SYNC_METRICS } from '../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../support/log.js';
import { MemorySyncLedger } from '../support/memory-ledger.js';
import { T0 } from '../suppression/support.js';

const NOW = T0 + 10_000;
const EMAIL = 'a@example.com';

function world(answer: Error, providers: SyncProviderName[] = ['resend']) {
  const ledger = new MemorySyncLedger(NOW - 1_000);
  ledger.add(EMAIL);
  const resent: Array<{ message: SyncMessage; delaySeconds: number }> = [];
  const counters = new MemoryCounters();
  const handler = createSyncWorkerHandler({
    push: {
      ledger,
      providers,
      now: () => NOW,
      plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
      apply: async () => {
        throw answer;
      },
    },
    queue: {
      hide: async () => undefined,
      resend: async (body, delaySeconds) => void resent.push({ message: parseSyncMessage(body), delaySeconds }),
      deadLetter: async () => undefined,
    },
    retryHorizonMs: 3_600_000,
    log: recordingLog().log,
    counters,
    random: () => 0,
  });
  const send = (message: SyncMessage, receives = 1) =>
    handler({
      Records: [
        {
          messageId: 'm1',
          receiptHandle: 'rh1',
          body: encodeSyncMessage(message),
          attributes: { ApproximateReceiveCount: String(receives) },
        } as unknown as SQSRecord,
      ],
    });
  const retried = () => [...counters.totals.keys()].filter((k) => k.startsWith(SYNC_METRICS.retried));
  return { ledger, resent, send, retried, due: () => ledger.views.get(EMAIL)!.due };
}

describe('a backlog past the booking horizon waits in the outbox', () => {
  const later = NOW + 3_600_000;

  it('the message is done, nothing is sent again, and the marker is due when the gate said: whole, so the sweep asks nothing', async () => {
    const w = world(new SyncProviderBacklogError('resend', later));
    const response = await w.send({ email: EMAIL, provider: 'resend' });
    expect(response.batchItemFailures).toEqual([]);
    expect(w.resent).toEqual([]);
    expect(w.due()).toBe(later);
    expect(wasLeased(w.due()!)).toBe(false);
    expect(w.retried()).toEqual([]);
  });

  it('sets the marker, not only moves it forward: a long lease written while the queue was deep is cut to the gate’s time', async () => {
    const w = world(new SyncProviderBacklogError('resend', later));
    w.ledger.views.get(EMAIL)!.due = leased(NOW + 6 * 3_600_000);
    await w.send({ email: EMAIL, provider: 'resend' });
    expect(Math.floor(w.due()!)).toBe(later);
  });

  it('a message that may follow a lost push keeps the marker a lease, so the sweep’s message asks first', async () => {
    const asking = world(new SyncProviderBacklogError('resend', later));
    await asking.send({ email: EMAIL, provider: 'resend' }, 2);
    expect(asking.due()).toBe(leased(later));
  });

  it('a lease stays a lease while another provider lags (its message may have been pushed unrecorded), and goes whole when none does', async () => {
    const shared = world(new SyncProviderBacklogError('resend', later), ['resend', 'sendgrid']);
    shared.ledger.views.get(EMAIL)!.due = leased(NOW - 500);
    await shared.send({ email: EMAIL, provider: 'resend' });
    expect(shared.due()).toBe(leased(later));

    const alone = world(new SyncProviderBacklogError('resend', later));
    alone.ledger.views.get(EMAIL)!.due = leased(NOW - 500);
    await alone.send({ email: EMAIL, provider: 'resend' });
    expect(alone.due()).toBe(later);
  });

  it('a change `sync retry` put back (its marker parked, `failed` at this provider) waits in the outbox like any other: failed no more, the marker live again', async () => {
    for (const due of [undefined, DEAD_DUE_MS]) {
      const w = world(new SyncProviderBacklogError('resend', later));
      const view = w.ledger.views.get(EMAIL)!;
      view.due = due;
      view.sync = {
        resend: { at: T0, lists: [], failed: { at: T0, change: view.change, error: 'SyncTransientError: 503' } },
      };
      const response = await w.send({ email: EMAIL, provider: 'resend' });
      expect(response.batchItemFailures).toEqual([]);
      // Sent round the queue instead, it came back every 15 minutes to a line still full, told a later time each
      // trip, and each trip pushed the outbox's times (the changes that do wait there) further out.
      expect(w.resent).toEqual([]);
      expect(w.due()).toBe(later);
      expect(w.ledger.views.get(EMAIL)!.sync.resend?.failed).toBeUndefined();
    }
  });

  it('a record with no live marker and nothing lagging at this provider has no sweep coming: the message goes round the queue instead, with no turn', async () => {
    for (const due of [undefined, DEAD_DUE_MS]) {
      const w = world(new SyncProviderBacklogError('resend', NOW + 120_000));
      const view = w.ledger.views.get(EMAIL)!;
      view.due = due;
      view.sync = { resend: { at: T0, lists: [], change: view.change } };
      const response = await w.send({ email: EMAIL, provider: 'resend', turn: NOW - 5 });
      expect(response.batchItemFailures).toEqual([]);
      expect(w.resent).toEqual([{ message: { email: EMAIL, provider: 'resend' }, delaySeconds: 120 }]);
    }
  });

  it('waiting in the outbox moves a retrying change’s horizon forward by the wait', async () => {
    const w = world(new SyncProviderBacklogError('resend', later));
    const view = w.ledger.views.get(EMAIL)!;
    view.sync = { resend: { at: T0, lists: [], retrying: { change: view.change, since: NOW - 60_000 } } };
    await w.send({ email: EMAIL, provider: 'resend' });
    expect(w.ledger.views.get(EMAIL)!.sync.resend?.retrying?.since).toBe(NOW - 60_000 + (later - NOW));
  });
});

describe('a reserved slot and a 429', () => {
  it('a call handed back with a slot is sent again carrying it as its turn, delayed until then', async () => {
    const w = world(new SyncProviderBusyError('resend', NOW + 4_000));
    await w.send({ email: EMAIL, provider: 'resend' });
    expect(w.resent).toEqual([{ message: { email: EMAIL, provider: 'resend', turn: NOW + 4_000 }, delaySeconds: 4 }]);
    expect(w.retried()).toEqual([]);
  });

  it('a 429 spends the turn: the message waits out the pause with none', async () => {
    const w = world(new SyncRateLimitedError('resend', NOW + 30_000));
    await w.send({ email: EMAIL, provider: 'resend', turn: NOW });
    expect(w.resent).toEqual([{ message: { email: EMAIL, provider: 'resend' }, delaySeconds: 30 }]);
  });
});

describe('the turn on the wire', () => {
  it('round-trips, and a turn that is not a time is dropped rather than refusing the message', () => {
    expect(parseSyncMessage(encodeSyncMessage({ email: EMAIL, provider: 'ses', turn: 1_700_000_000_000 }))).toEqual({
      email: EMAIL,
      provider: 'ses',
      turn: 1_700_000_000_000,
    });
    for (const turn of ['soon', -1, 0, null, Number.POSITIVE_INFINITY])
      expect(parseSyncMessage(JSON.stringify({ email: EMAIL, provider: 'ses', turn }))).toEqual({
        email: EMAIL,
        provider: 'ses',
      });
  });

  it('only a finite positive number is a turn: a string, a boolean, or a number too large for a double (read as Infinity) is dropped', () => {
    for (const turn of ['"1700000000000"', 'true', '1e400'])
      expect(parseSyncMessage(`{"email":"${EMAIL}","provider":"ses","turn":${turn}}`)).toStrictEqual({
        email: EMAIL,
        provider: 'ses',
      });
  });
});

describe('a send the queue did not wholly take', () => {
  it('is a TransientError naming the messages not queued, with the cause kept', () => {
    const unsent: SyncMessage[] = [{ email: EMAIL, provider: 'ses' }];
    const cause = new Error('1 entries failed: InternalError');
    const error = new SyncSendError(unsent, { cause });
    expect(error).toBeInstanceOf(TransientError);
    expect([error.message, error.unsent, error.cause]).toStrictEqual(['sync SendMessageBatch failed', unsent, cause]);
  });
});

describe('a deferral beside another provider’s wait', () => {
  it('never moves the marker earlier while another provider lags: its message still waits in the queue, and a sweep then would send it a second', async () => {
    const later = NOW + 60_000;
    const w = world(new SyncProviderBacklogError('resend', later), ['resend', 'sendgrid']);
    // SendGrid answered 429 for 10 minutes: its message waits in the queue, the marker leased past it (recordWait).
    const sendgridLease = leased(NOW + 660_000);
    w.ledger.views.get(EMAIL)!.due = sendgridLease;
    await w.send({ email: EMAIL, provider: 'resend' });
    expect(w.due()).toBe(sendgridLease);
    // Kept later, it still says so when this message may follow a lost push.
    const asking = world(new SyncProviderBacklogError('resend', later), ['resend', 'sendgrid']);
    asking.ledger.views.get(EMAIL)!.due = NOW + 660_000;
    await asking.send({ email: EMAIL, provider: 'resend' }, 2);
    expect(asking.due()).toBe(leased(NOW + 660_000));
  });
});
