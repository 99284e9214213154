import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { consumeMessage, parseQueuedEvent } from '../../../lambdas/core/pipeline/consume.js';
import type { SuppressionStore } from '../../../lambdas/core/pipeline/ports.js';
import { recordingLog } from '../support/log.js';
import { event } from './fakes.js';

const { raw: _raw, ...queuedEvent } = event({ eventId: 'q1' });
const valid = { pk: 'fake#q1', event: queuedEvent };

function refusal(body: string): unknown {
  try {
    parseQueuedEvent(body);
  } catch (error) {
    return error;
  }
  return undefined;
}

function expectRefused(value: unknown, message: string) {
  const error = refusal(JSON.stringify(value));
  expect(error).toBeInstanceOf(MalformedRequestError);
  expect((error as Error).message).toBe(message);
}

describe('parseQueuedEvent', () => {
  it('returns a well-formed message as it came', () => {
    expect(parseQueuedEvent(JSON.stringify(valid))).toEqual(valid);
  });

  it('refuses a body that is not an object with a string pk and an event object', () => {
    const noPkEvent = 'queue message has no pk/event';
    for (const value of [null, 42, 'text', [valid]]) expectRefused(value, noPkEvent);
    expectRefused({ event: queuedEvent }, noPkEvent);
    expectRefused({ pk: 7, event: queuedEvent }, noPkEvent);
    expectRefused({ pk: 'fake#q1' }, noPkEvent);
    expectRefused({ pk: 'fake#q1', event: 'hard_bounce' }, noPkEvent);
    expectRefused({ pk: 'fake#q1', event: [queuedEvent] }, noPkEvent);
  });

  it('refuses an event missing any field the consumer relies on, one field at a time', () => {
    const notActionable = 'queue message event is not a normalized actionable event';
    const broken: Array<Record<string, unknown>> = [
      { provider: undefined },
      { provider: 1 },
      { eventId: undefined },
      { eventId: 1 },
      { recipient: undefined },
      { recipient: null },
      { occurredAt: '1700000000000' },
      { occurredAt: undefined },
      { kind: 'bounce' },
      { kind: undefined },
      // Ignored events are acknowledged at the edge and never queued: one on the queue is a bug.
      { kind: 'ignored' },
    ];
    for (const patch of broken) expectRefused({ pk: 'fake#q1', event: { ...queuedEvent, ...patch } }, notActionable);
  });

  it('accepts every actionable kind', () => {
    for (const kind of ['delivered', 'soft_bounce', 'hard_bounce', 'complaint', 'unsubscribe', 'subscribe'] as const) {
      expect(parseQueuedEvent(JSON.stringify({ pk: 'p', event: { ...queuedEvent, kind } })).event.kind).toBe(kind);
    }
  });
});

describe('consumeMessage: counters and the debug line', () => {
  function store(result: { changed: boolean; effect: string; becameSuppressed: boolean }): SuppressionStore {
    return { apply: async () => result };
  }

  it('counts the application, and a new suppression only when the address became suppressed', async () => {
    const counters = new MemoryCounters();
    const { log } = recordingLog();
    const result = await consumeMessage(
      { suppressions: store({ changed: true, effect: 'evidence_added', becameSuppressed: false }), log, counters },
      JSON.stringify(valid),
    );
    expect(result).toEqual({ provider: 'fake', effect: 'evidence_added', changed: true });
    expect([...counters.totals]).toEqual([['EventsApplied{provider=fake}', 1]]);
  });

  it('writes one debug line naming the provider, kind, effect and change', async () => {
    const { log, lines } = recordingLog();
    await consumeMessage(
      {
        suppressions: store({ changed: false, effect: 'no_change', becameSuppressed: false }),
        log,
        counters: new MemoryCounters(),
      },
      JSON.stringify(valid),
    );
    expect(lines).toEqual([
      ['debug', 'event applied', { provider: 'fake', kind: 'hard_bounce', effect: 'no_change', changed: false }],
    ]);
  });

  it('works with a log that has no debug level (debug is optional)', async () => {
    const { log } = recordingLog();
    const { debug: _debug, ...withoutDebug } = log;
    const counters = new MemoryCounters();
    const result = await consumeMessage(
      {
        suppressions: store({ changed: true, effect: 'suppressed', becameSuppressed: true }),
        log: withoutDebug,
        counters,
      },
      JSON.stringify(valid),
    );
    expect(result).toEqual({ provider: 'fake', effect: 'suppressed', changed: true });
    expect(counters.totals.get('AddressesSuppressed{provider=fake}')).toBe(1);
  });
});
