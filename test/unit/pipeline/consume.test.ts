import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import { consumeMessage, parseQueuedEvent } from '../../../lambdas/core/pipeline/consume.js';
import type { SuppressionStore } from '../../../lambdas/core/pipeline/ports.js';
import { skipWithoutRecord } from '../../../lambdas/core/pipeline/write-policy.js';
import { applyEvent, emptyRecord } from '../../../lambdas/core/suppression/index.js';
import { createConsumerHandler } from '../../../lambdas/handlers/consumer-handler.js';
import { recordingLog } from '../support/log.js';
import { event } from './fakes.js';

function store(changed = true): SuppressionStore & { applied: string[]; skips: unknown[] } {
  const applied: string[] = [];
  const skips: unknown[] = [];
  return {
    applied,
    skips,
    async apply(e, skip) {
      if (e.recipient === 'boom@example.com') throw new Error('table down');
      applied.push(e.eventId);
      skips.push(skip);
      return { changed, effect: 'evidence_added', becameSuppressed: changed };
    },
  };
}

const body = (eventId: string, recipient = 'a@example.com') => {
  const { raw: _raw, ...rest } = event({ eventId, recipient });
  return JSON.stringify({ pk: `fake#${eventId}`, event: rest });
};

describe('consumer', () => {
  it('applies the event carried by the message alone (the inbox row may not exist yet)', async () => {
    const suppressions = store();
    const { log, lines } = recordingLog();
    const counters = new MemoryCounters();
    const result = await consumeMessage({ suppressions, log, counters }, body('x1'));
    expect(result).toEqual({ provider: 'fake', effect: 'evidence_added', changed: true });
    expect(suppressions.applied).toEqual(['x1']);
    expect(counters.totals.get('EventsApplied{provider=fake}')).toBe(1);
    expect(counters.totals.get('AddressesSuppressed{provider=fake}')).toBe(1);
    // Per-event detail is DEBUG only.
    expect(lines.map(([level]) => level)).toEqual(['debug']);
  });

  it('refuses a poison message loudly', () => {
    expect(() => parseQueuedEvent('not json')).toThrow(/not JSON/);
    expect(() => parseQueuedEvent(JSON.stringify({ pk: 'p', event: { provider: 'x' } }))).toThrow(/not a normalized/);
  });

  it('logs one INFO line per batch and flushes metrics once, reporting only failed records', async () => {
    const { log, lines } = recordingLog();
    const counters = new MemoryCounters();
    const handler = createConsumerHandler({ suppressions: store(), log, counters });
    const records = [body('a'), body('b', 'boom@example.com'), body('c')].map((b, i) => ({
      messageId: `m${i}`,
      body: b,
    }));
    const response = await handler({ Records: records } as unknown as SQSEvent);
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: 'm1' }]);
    expect(counters.flushes).toBe(1);
    const notDebug = lines.filter(([level]) => level !== 'debug');
    expect(notDebug).toEqual([
      ['warn', 'batch applied with failures', { received: 3, applied: 2, written: 2, failed: 1 }],
    ]);
    const ok = await handler({ Records: [records[0]!] } as unknown as SQSEvent);
    expect(ok.batchItemFailures).toEqual([]);
    expect(lines.at(-1)).toEqual(['info', 'batch applied', { received: 1, applied: 1, written: 1, failed: 0 }]);
  });
});

describe('write policy: a delivery for an address with no record writes nothing', () => {
  it('is the consumer that asks for it: every apply carries skipWithoutRecord', async () => {
    const suppressions = store();
    await consumeMessage({ suppressions, log: recordingLog().log, counters: new MemoryCounters() }, body('x1'));
    expect(suppressions.skips).toEqual([skipWithoutRecord]);
  });

  it('skips only a `delivered` with no record', () => {
    expect(skipWithoutRecord(undefined, event({ kind: 'delivered' }))).toEqual({
      record: emptyRecord('a@example.com'),
      changed: false,
      effect: 'no_change',
      becameSuppressed: false,
    });
    expect(skipWithoutRecord(undefined, event({ kind: 'soft_bounce' }))).toBeUndefined();
    const existing = applyEvent(undefined, event({ kind: 'soft_bounce' })).record;
    expect(skipWithoutRecord(existing, event({ kind: 'delivered' }))).toBeUndefined();
  });
});
