import { describe, expect, it } from 'vitest';
import { backlogAt, merge, rateAt, runQueue, scale } from '../../../capacity/queueing.js';

describe('runQueue (fluid queue, exact for piecewise-constant arrivals)', () => {
  it('backs up at the difference and drains at the service rate once arrivals stop', () => {
    const run = runQueue([{ seconds: 60, rate: 100 }], 60);
    expect(run.peakBacklog).toBe(2400);
    expect(run.peakAt).toBe(60);
    expect(run.drainSeconds).toBe(40);
    expect(run.emptyAt).toBe(100);
    expect(run.output).toEqual([{ seconds: 100, rate: 60 }]);
    expect(backlogAt(run, 30)).toBe(1200);
    expect(backlogAt(run, 80)).toBe(1200);
  });

  it('drains at the difference while slower arrivals continue, then passes them through', () => {
    const run = runQueue(
      [
        { seconds: 60, rate: 100 },
        { seconds: 100, rate: 30 },
      ],
      60,
    );
    expect(run.peakBacklog).toBe(2400);
    expect(run.drainSeconds).toBe(80);
    expect(run.emptyAt).toBe(140);
    expect(run.output).toEqual([
      { seconds: 140, rate: 60 },
      { seconds: 20, rate: 30 },
    ]);
  });

  it('never backs up below its service rate: no backlog, output equals input', () => {
    const run = runQueue([{ seconds: 50, rate: 10 }], 60);
    expect(run.peakBacklog).toBe(0);
    expect(run.drainSeconds).toBe(0);
    expect(run.emptyAt).toBe(0);
    expect(run.output).toEqual([{ seconds: 50, rate: 10 }]);
  });

  it('chains: the second queue sees the first one capped at its service rate', () => {
    const first = runQueue(
      [
        { seconds: 60, rate: 100 },
        { seconds: 100, rate: 30 },
      ],
      60,
    );
    const second = runQueue(first.output, 50);
    expect(second.peakBacklog).toBe(1400);
    expect(second.peakAt).toBe(140);
    expect(second.drainSeconds).toBe(40);
  });

  it('refuses a service rate of 0', () => {
    expect(() => runQueue([{ seconds: 1, rate: 1 }], 0)).toThrow(/service rate/);
  });
});

describe('segments', () => {
  it('merge adds two inputs over time; scale multiplies rates; rateAt reads one', () => {
    const merged = merge(
      [{ seconds: 10, rate: 1 }],
      [
        { seconds: 5, rate: 2 },
        { seconds: 10, rate: 4 },
      ],
    );
    expect(merged).toEqual([
      { seconds: 5, rate: 3 },
      { seconds: 5, rate: 5 },
      { seconds: 5, rate: 4 },
    ]);
    expect(scale(merged, 2).map((s) => s.rate)).toEqual([6, 10, 8]);
    expect(rateAt(merged, 7)).toBe(5);
    expect(rateAt(merged, 20)).toBe(0);
  });
});
