/**
 * The drain meter (core/sync/lease.ts): the workers' rate is learned only from a sample taken later
 * than the last one, and what a sweep queued is added to the depth it found before the next sample.
 */
import { describe, expect, it } from 'vitest';
import { DrainMeter } from '../../../lambdas/core/sync/lease.js';

describe('the drain meter', () => {
  it('a second sample at the same instant teaches nothing: the rate stays what the last interval measured', () => {
    const meter = new DrainMeter(100);
    expect(meter.observe(0, 100)).toBe(100);
    // 60 messages drained in 60 s.
    expect(meter.observe(60_000, 40)).toBe(1);
    // Same instant (two sweeps in one ms): no interval to divide by.
    expect(meter.observe(60_000, 40)).toBe(1);
    expect(meter.observe(60_000, 10)).toBe(1);
    expect(meter.perSecond).toBe(1);
  });

  it('a sample older than the last one does not change the rate either', () => {
    const meter = new DrainMeter(100);
    meter.observe(0, 100);
    meter.observe(60_000, 40);
    expect(meter.observe(30_000, 0)).toBe(1);
    expect(meter.perSecond).toBe(1);
  });

  it('what the sweeps queued is added to the depth they found: the next sample measures the drop from there', () => {
    const meter = new DrainMeter(100);
    meter.observe(0, 100);
    meter.sent(50);
    meter.sent(10);
    // (100 + 50 + 10 - 40) messages in 60 s.
    expect(meter.observe(60_000, 40)).toBe(2);
  });

  it('messages counted before any sample are dropped: the first sample only starts the measurement', () => {
    const meter = new DrainMeter(100);
    expect(() => meter.sent(500)).not.toThrow();
    expect(meter.perSecond).toBe(100);
    expect(meter.observe(0, 10)).toBe(100);
    // (10 - 4) messages in 60 s: the 500 were not added to a sample.
    expect(meter.observe(60_000, 4)).toBe(0.1);
  });
});
