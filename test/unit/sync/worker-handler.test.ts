/**
 * The sync worker's SQS handler: what it does with each failure. A 429 sends the message again fresh,
 * delayed until the named time, and never counts toward the horizon; a transient failure backs off by its receive count;
 * a change whose first counted failure (kept on the record, not the message's send time) is older than
 * the horizon, or a permanent refusal, goes to the dead letters with the reason and is marked on the
 * record; a malformed message is dead-lettered; one provider's failure leaves the other messages of
 * the batch alone.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { leased } from '../../../lambdas/core/sync/lease.js';
import { encodeSyncMessage } from '../../../lambdas/core/sync/message.js';
import {
  type SyncOperation,
  type SyncProviderName,
  SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { createSyncWorkerHandler } from '../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../support/log.js';
import { MemorySyncLedger } from '../support/memory-ledger.js';
import { T0 } from '../suppression/support.js';

const NOW = T0 + 1_000_000;

function record(
  email: string,
  provider: SyncProviderName,
  attributes: { sentAt?: number; receives?: number } = {},
  body?: string,
): SQSRecord {
  return {
    messageId: `${email}-${provider}`,
    receiptHandle: `rh-${email}-${provider}`,
    body: body ?? encodeSyncMessage({ email, provider }),
    attributes: {
      ApproximateReceiveCount: String(attributes.receives ?? 1),
      SentTimestamp: String(attributes.sentAt ?? NOW - 1000),
      SenderId: 'x',
      ApproximateFirstReceiveTimestamp: String(NOW),
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn',
    awsRegion: 'us-east-1',
  };
}

function setup(
  apply: (provider: SyncProviderName, op: SyncOperation) => Promise<{ lists: string[] }>,
  held?: (provider: SyncProviderName, op: SyncOperation) => Promise<{ lists: string[] } | undefined>,
  options: { resendFails?: boolean } = {},
) {
  const ledger = new MemorySyncLedger(NOW);
  const hidden: Array<{ receipt: string; seconds: number }> = [];
  const resent: Array<{ body: string; seconds: number }> = [];
  const dead: Array<{ body: string; provider: string; error: string }> = [];
  const counters = new MemoryCounters();
  const handler = createSyncWorkerHandler({
    push: {
      ledger,
      providers: ['ses', 'resend'],
      now: () => NOW,
      plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
      apply,
      ...(held ? { held } : {}),
    },
    queue: {
      hide: async (receipt, seconds) => void hidden.push({ receipt, seconds }),
      resend: async (body, seconds) => {
        if (options.resendFails) throw new Error('SQS unavailable');
        resent.push({ body, seconds });
      },
      deadLetter: async (body, reason) => void dead.push({ body, ...reason }),
    },
    retryHorizonMs: 3_600_000,
    log: recordingLog().log,
    counters,
    random: () => 1,
  });
  return { ledger, hidden, resent, dead, counters, handler };
}

const event = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

describe('sync worker handler', () => {
  it('a 429 sends the message again fresh, delayed until the named time; the other provider is pushed in the same batch', async () => {
    const s = setup(async (provider) => {
      if (provider === 'resend') throw new SyncRateLimitedError('resend', NOW + 2_500);
      return { lists: ['account'] };
    });
    s.ledger.add('a@x');
    const response = await s.handler(event(record('a@x', 'ses'), record('a@x', 'resend')));
    expect(response.batchItemFailures).toEqual([]);
    expect(s.hidden).toEqual([]);
    expect(s.resent).toEqual([{ body: encodeSyncMessage({ email: 'a@x', provider: 'resend' }), seconds: 3 }]);
    expect(s.ledger.views.get('a@x')!.sync.ses).toMatchObject({ change: 1 });
    expect(s.counters.totals.get('SyncPushed{provider=ses}')).toBe(1);
    // The marker moved past the retry, so the sweeper does not send a second copy meanwhile.
    expect(s.ledger.views.get('a@x')!.due).toBe(leased(NOW + 3_000 + 60_000));
  });

  it('a transient failure backs off by receive count (5 s doubling, capped at 15 min)', async () => {
    const s = setup(async () => {
      throw new SyncTransientError('ses', '503');
    });
    s.ledger.add('a@x');
    for (const [receives, seconds] of [
      [1, 5],
      [3, 20],
      [12, 900],
    ] as const) {
      await s.handler(event(record('a@x', 'ses', { receives })));
      expect(s.hidden.at(-1)).toEqual({ receipt: 'rh-a@x-ses', seconds });
    }
    expect(s.dead).toEqual([]);
  });

  const retryingSince = (s: ReturnType<typeof setup>, provider: SyncProviderName, since: number) => {
    const view = s.ledger.views.get('a@x')!;
    view.sync = { ...view.sync, [provider]: { at: since, lists: [], retrying: { change: 1, since } } };
  };

  it('past the horizon (counted from the first counted failure on the record): dead-lettered with the reason, marked, counted, and deleted', async () => {
    const s = setup(async () => {
      throw new SyncTransientError('resend', 'connect ECONNREFUSED');
    });
    s.ledger.add('a@x');
    retryingSince(s, 'resend', NOW - 3_600_000);
    // A message sent a moment ago: its own age says nothing, the record's first failure does.
    const response = await s.handler(event(record('a@x', 'resend', { sentAt: NOW - 1000, receives: 14 })));
    expect(response.batchItemFailures).toEqual([]);
    expect(s.dead).toEqual([
      {
        body: encodeSyncMessage({ email: 'a@x', provider: 'resend' }),
        provider: 'resend',
        error: 'SyncTransientError: connect ECONNREFUSED',
      },
    ]);
    expect(s.ledger.views.get('a@x')!.sync.resend).toEqual({
      at: NOW - 3_600_000,
      lists: [],
      failed: { at: NOW, change: 1, error: 'SyncTransientError: connect ECONNREFUSED' },
    });
    expect(s.counters.totals.get('SyncFailed{provider=resend}')).toBe(1);
  });

  it('just inside the horizon: retried, not dead-lettered, and the first failure kept', async () => {
    const s = setup(async () => {
      throw new SyncTransientError('resend', '502');
    });
    s.ledger.add('a@x');
    retryingSince(s, 'resend', NOW - 3_599_000);
    const response = await s.handler(event(record('a@x', 'resend')));
    expect(response.batchItemFailures).toHaveLength(1);
    expect(s.dead).toEqual([]);
    expect(s.ledger.views.get('a@x')!.sync.resend?.retrying).toEqual({ change: 1, since: NOW - 3_599_000 });
  });

  it('time queued behind a backlog does not count: a message sent two hours ago failing for the first time starts the clock now', async () => {
    const s = setup(async () => {
      throw new SyncTransientError('resend', '503');
    });
    s.ledger.add('a@x');
    const response = await s.handler(event(record('a@x', 'resend', { sentAt: NOW - 7_200_000, receives: 1 })));
    expect(response.batchItemFailures).toHaveLength(1);
    expect(s.dead).toEqual([]);
    expect(s.ledger.views.get('a@x')!.sync.resend?.retrying).toEqual({ change: 1, since: NOW });
    // The marker moved past the retry (5 s) and its grace, in the same write.
    expect(s.ledger.views.get('a@x')!.due).toBe(leased(NOW + 5_000 + 60_000));
  });

  it('a redelivery asks the provider first (its first delivery may have been applied and never recorded); a first delivery does not', async () => {
    const calls: string[] = [];
    const s = setup(
      async () => {
        calls.push('apply');
        return { lists: ['account'] };
      },
      async () => {
        calls.push('held');
        return { lists: ['account'] };
      },
    );
    s.ledger.add('a@x');
    s.ledger.add('b@x');
    await s.handler(event(record('a@x', 'ses', { receives: 2 })));
    expect(calls).toEqual(['held']);
    expect(s.ledger.views.get('a@x')!.sync.ses).toMatchObject({ lists: ['account'], change: 1 });
    // Found, not pushed: nothing counted as a push.
    expect(s.counters.totals.get('SyncPushed{provider=ses}')).toBeUndefined();
    await s.handler(event(record('b@x', 'ses', { receives: 1 })));
    expect(calls).toEqual(['held', 'apply']);
  });

  it('a retrying record of an older change starts a new count for the new change', async () => {
    const s = setup(async () => {
      throw new SyncTransientError('resend', '503');
    });
    s.ledger.add('a@x');
    const view = s.ledger.views.get('a@x')!;
    view.sync = { resend: { at: 1, lists: [], retrying: { change: 0, since: NOW - 9_000_000 } } };
    await s.handler(event(record('a@x', 'resend')));
    expect(s.dead).toEqual([]);
    expect(s.ledger.views.get('a@x')!.sync.resend?.retrying).toEqual({ change: 1, since: NOW });
  });

  it.each([
    ['a 429', new SyncRateLimitedError('resend', NOW + 30_000)],
    ['the shared pause (the gate refusing without a call)', new SyncRateLimitedError('resend', NOW + 30_000)],
  ])(
    'waiting is not failing: %s past the horizon is sent again for the named time, never dead-lettered',
    async (_name, error) => {
      const s = setup(async () => {
        throw error;
      });
      s.ledger.add('a@x');
      retryingSince(s, 'resend', NOW - 10 * 3_600_000);
      const response = await s.handler(event(record('a@x', 'resend', { sentAt: NOW - 10 * 3_600_000, receives: 40 })));
      expect(response.batchItemFailures).toEqual([]);
      expect(s.dead).toEqual([]);
      // Sent fresh from a 40th receive: no lookup next time (nothing was pushed), and the count starts again.
      expect(s.resent).toEqual([
        { body: encodeSyncMessage({ email: 'a@x', provider: 'resend', recheck: true }), seconds: 30 },
      ]);
      expect(s.hidden).toEqual([]);
      expect(s.ledger.views.get('a@x')!.sync.resend?.failed).toBeUndefined();
      expect(s.counters.totals.get('SyncFailed{provider=resend}')).toBeUndefined();
    },
  );

  it('a wait after a first delivery is sent again without recheck (a 429 pushed nothing), and a failed re-send leaves the message to come back', async () => {
    const s = setup(async () => {
      throw new SyncRateLimitedError('resend', NOW + 20_000);
    });
    s.ledger.add('a@x');
    const response = await s.handler(event(record('a@x', 'resend')));
    expect(response.batchItemFailures).toEqual([]);
    expect(s.resent).toEqual([{ body: encodeSyncMessage({ email: 'a@x', provider: 'resend' }), seconds: 20 }]);
    expect(s.hidden).toEqual([]);
    expect(s.dead).toEqual([]);

    const failing = setup(
      async () => {
        throw new SyncRateLimitedError('resend', NOW + 20_000);
      },
      undefined,
      { resendFails: true },
    );
    failing.ledger.add('a@x');
    const kept = await failing.handler(event(record('a@x', 'resend')));
    expect(kept.batchItemFailures).toEqual([{ itemIdentifier: 'a@x-resend' }]);
    expect(failing.resent).toEqual([]);
    expect(failing.dead).toEqual([]);
  });

  it('once pushed, the retry record is dropped with the catch-up', async () => {
    const s = setup(async () => ({ lists: ['suppressions'] }));
    s.ledger.add('a@x');
    retryingSince(s, 'resend', NOW - 60_000);
    expect((await s.handler(event(record('a@x', 'resend')))).batchItemFailures).toEqual([]);
    expect(s.ledger.views.get('a@x')!.sync.resend).not.toHaveProperty('retrying');
    expect(s.ledger.views.get('a@x')!.sync.resend).toMatchObject({ change: 1, lists: ['suppressions'] });
  });

  it('a permanent refusal is dead-lettered at once', async () => {
    const s = setup(async () => {
      throw new SyncRefusedError('resend', 401, 'resend refused the key (401)');
    });
    s.ledger.add('a@x');
    expect((await s.handler(event(record('a@x', 'resend')))).batchItemFailures).toEqual([]);
    expect(s.dead.map((d) => d.error)).toEqual(['SyncRefusedError: resend refused the key (401)']);
  });

  it('a malformed message goes to the dead letters, not back to the queue', async () => {
    const s = setup(async () => ({ lists: [] }));
    expect((await s.handler(event(record('a@x', 'ses', {}, '{"email":"a@x"}')))).batchItemFailures).toEqual([]);
    expect(s.dead).toEqual([
      { body: '{"email":"a@x"}', provider: 'unknown', error: 'sync message has no known provider' },
    ]);
  });
});
