/** The pure side of counting from the inbox stream: cells per provider, sender and hour, and what a cell still counts above its mark. */
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../../lambdas/core/reputation/counts.js';
import {
  type AdmittedRecord,
  cellBatches,
  countAbove,
  padSequence,
  SEQUENCE_DIGITS,
} from '../../../lambdas/core/reputation/stream-count.js';

const H = Date.UTC(2026, 11, 3, 12);
const ev = (sender: string | undefined, kind: 'delivered' | 'hard_bounce' | 'unsubscribe', echo = false) => ({
  provider: 'generic',
  kind,
  sender,
  detail: echo ? { echo: true } : {},
});
const rec = (sequence: string, atMs: number, ...events: AdmittedRecord['events'][number][]): AdmittedRecord => ({
  sequence,
  atMs,
  events,
});

describe('cellBatches', () => {
  it('groups per provider, sender and hour of admission, entries in sequence order', () => {
    const cells = cellBatches([
      rec('300', H + 10, ev('a.example', 'delivered')),
      rec('100', H + 5, ev('a.example', 'hard_bounce'), ev('b.example', 'delivered')),
      rec('200', H + HOUR_MS, ev('a.example', 'delivered')),
    ]);
    expect(cells.map((c) => [c.sender, c.hourMs, c.entries.map((e) => Number(e.sequence))])).toEqual([
      ['a.example', H, [100, 300]],
      ['b.example', H, [100]],
      ['a.example', H + HOUR_MS, [200]],
    ]);
    expect(cells[0]!.entries[0]!.counts).toMatchObject({ hardBounced: 1, delivered: 0 });
  });

  it('counts no echo, no event without a sender, and nothing that is no outcome', () => {
    expect(
      cellBatches([
        rec('1', H, ev('a.example', 'delivered', true), ev(undefined, 'delivered'), ev('a.example', 'unsubscribe')),
      ]),
    ).toEqual([]);
  });
});

describe('countAbove and padSequence', () => {
  const [cell] = cellBatches([
    rec('10', H, ev('a.example', 'delivered')),
    rec('20', H, ev('a.example', 'hard_bounce')),
    rec('30', H, ev('a.example', 'delivered')),
  ]);

  it('counts only the entries above the mark, and names the new mark', () => {
    expect(countAbove(cell!, undefined)).toMatchObject({ records: 3, counts: { delivered: 2, hardBounced: 1 } });
    expect(countAbove(cell!, padSequence('10'))).toMatchObject({
      records: 2,
      counts: { delivered: 1, hardBounced: 1 },
      first: padSequence('20'),
      last: padSequence('30'),
    });
    expect(countAbove(cell!, padSequence('30'))).toBeUndefined();
  });

  it('pads to 40 digits so strings order as numbers, and refuses what is no sequence number', () => {
    expect(padSequence('9') < padSequence('10')).toBe(true);
    expect(padSequence('1'.repeat(40))).toHaveLength(SEQUENCE_DIGITS);
    for (const bad of ['', '12a', '-1', '1'.repeat(41)]) expect(() => padSequence(bad)).toThrow(TypeError);
    expect(() => padSequence('12a')).toThrow(new TypeError('not a stream sequence number: 12a'));
  });
});
