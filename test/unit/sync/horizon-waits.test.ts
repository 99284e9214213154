/**
 * The retry horizon and waiting, over time: SYNC_RETRY_SECONDS runs from the first counted failure
 * (a 5xx, a timeout, a network error) and a 429 or the shared pause is waiting, never failing.
 *
 * A wait after a counted failure moves the horizon's start forward by the time waited (recordWait,
 * core/sync/push.ts), so a 429 storm that follows one 5xx is not counted: a single 5xx, then two hours
 * of 429s, then one more 5xx is two failed attempts, not a change past its horizon.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { applyEvent, DEFAULT_RATCHET_POLICY } from '../../../lambdas/core/suppression/index.js';
import type { MarkerUpdate, SyncLedger, SyncView } from '../../../lambdas/core/sync/ledger.js';
import { encodeSyncMessage } from '../../../lambdas/core/sync/message.js';
import type { SyncMap } from '../../../lambdas/core/sync/state.js';
import { SyncRateLimitedError, SyncTransientError } from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';
import { createSyncWorkerHandler } from '../../../lambdas/handlers/sync-worker-handler.js';
import { recordingLog } from '../support/log.js';
import { ev, T0 } from '../suppression/support.js';

const EMAIL = 'storm@example.com';
const HORIZON_MS = 3_600_000;

class Ledger implements SyncLedger {
  view: SyncView;
  constructor(due: number) {
    const record = applyEvent(undefined, ev('complaint', T0, { recipient: EMAIL }), DEFAULT_RATCHET_POLICY).record;
    this.view = { record, sync: {}, change: 1, version: 1, due };
  }
  async read() {
    return structuredClone(this.view);
  }
  async commit(_email: string, version: number, sync: SyncMap, marker: MarkerUpdate) {
    if (this.view.version !== version) return false;
    const due = marker === 'keep' ? this.view.due : marker === 'clear' ? undefined : marker.due;
    this.view = { ...this.view, sync, version: version + 1, ...(due !== undefined ? { due } : {}) };
    return true;
  }
}

const message = (receives: number): SQSRecord =>
  ({
    messageId: `m${receives}`,
    receiptHandle: `rh${receives}`,
    body: encodeSyncMessage({ email: EMAIL, provider: 'sendgrid' }),
    attributes: { ApproximateReceiveCount: String(receives) },
  }) as unknown as SQSRecord;

describe('the horizon counts failing, not waiting', () => {
  it('one 5xx, two hours of 429s, one more 5xx: retried, not dead-lettered', async () => {
    let now = T0 + 1_000;
    let answer: () => never = () => {
      throw new SyncTransientError('sendgrid', 'sendgrid POST /v3/asm/suppressions/global: HTTP 503');
    };
    const ledger = new Ledger(now);
    const dead: string[] = [];
    const handler = createSyncWorkerHandler({
      push: {
        ledger,
        providers: ['sendgrid'],
        now: () => now,
        plan: () => ({ aliases: NO_TOPIC_ALIASES, handlesScope: () => false }),
        apply: async () => answer(),
      },
      queue: {
        hide: async () => undefined,
        resend: async () => undefined,
        deadLetter: async (_body, reason) => void dead.push(reason.error),
      },
      retryHorizonMs: HORIZON_MS,
      log: recordingLog().log,
      counters: new MemoryCounters(),
      random: () => 0,
    });

    // A 5xx: the horizon starts here.
    await handler({ Records: [message(1)] });
    expect(ledger.view.sync.sendgrid?.retrying?.since).toBe(now);
    // Two hours of 429s, a wait each minute: none of it fails.
    answer = () => {
      throw new SyncRateLimitedError('sendgrid', now + 60_000);
    };
    for (let minute = 0; minute < 120; minute++) {
      now += 60_000;
      await handler({ Records: [message(1)] });
    }
    expect(dead).toEqual([]);
    // One more 5xx: the second counted failure in two hours.
    now += 60_000;
    answer = () => {
      throw new SyncTransientError('sendgrid', 'sendgrid POST /v3/asm/suppressions/global: HTTP 503');
    };
    await handler({ Records: [message(1)] });
    expect(dead).toEqual([]);
  });
});
