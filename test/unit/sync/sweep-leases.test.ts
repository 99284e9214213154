/**
 * One sweep (core/sync/sweep.ts) over scripted pages, every port call recorded: the exact lease each
 * item gets (the queue ahead of its message: the queue's total depth, what this sweep sent before, and
 * the page's messages up to its own), which leases are written, what a refused or failed send or a
 * failed lease write does, the start sweep's messages, and the shard the sweep starts reading at.
 */
import { describe, expect, it } from 'vitest';
import { DrainMeter, LEASE, leased, leaseUntil } from '../../../lambdas/core/sync/lease.js';
import { type SyncMessage, SyncSendError } from '../../../lambdas/core/sync/message.js';
import { runSweep, type SweepPorts, type SweptItem } from '../../../lambdas/core/sync/sweep.js';

const item = (email: string, due = 0, over: Partial<SweptItem> = {}): SweptItem => ({
  email,
  due,
  change: 1,
  sync: {},
  ...over,
});

/** Pages handed to the sweep in order, page `i` read at `pageAt[i]`; sends, lease writes and the read options recorded. */
function script(pages: SweptItem[][], o: { visible?: number; total?: number; pageAt?: number[] } = {}) {
  let clock = 0;
  const sent: SyncMessage[][] = [];
  const postponed: Array<[string, number, number]> = [];
  const reads: Array<{ dueBefore: number; deadline?: number; startShard?: number }> = [];
  let pagesRead = 0;
  const ports: SweepPorts = {
    now: () => clock,
    depth: async () => ({ visible: o.visible ?? 0, total: o.total ?? o.visible ?? 0 }),
    send: async (messages) => void sent.push([...messages]),
    postpone: async (email, from, to) => void postponed.push([email, from, to]),
    pending: async (dueBefore, onPage, options) => {
      reads.push({ dueBefore, ...options });
      for (const [i, page] of pages.entries()) {
        clock = o.pageAt?.[i] ?? clock;
        pagesRead++;
        if ((await onPage(page)) === 'stop') return { complete: false };
      }
      return { complete: true };
    },
  };
  return { ports, sent, postponed, reads, pagesRead: () => pagesRead };
}

const options = { dueBefore: 0, deadline: 40_000, intervalMs: 60_000, writeConcurrency: 4, random: () => 0 };

describe('the lease of each item sent', () => {
  it('covers the whole queue ahead of its message: the total depth, what earlier pages sent, and this page up to it', async () => {
    // 1,000 messages on the queue (none visible: in flight or delayed), drained at 8/s; pages read at 1 s and 2 s.
    const s = script(
      [
        [item('a@x'), item('b@x')],
        [item('c@x'), item('d@x')],
      ],
      { visible: 0, total: 1_000, pageAt: [1_000, 2_000] },
    );
    const result = await runSweep(s.ports, new DrainMeter(8), ['ses'], options);
    expect(result).toEqual({ sent: 4, renewed: 0, complete: true });
    // now + 2 · (queued ahead / 8 per s) + 60 s grace, half a ms past (a lease).
    expect(s.postponed).toEqual([
      ['a@x', 0, 1_000 + 2 * 125_125 + 60_000 + 0.5],
      ['b@x', 0, 1_000 + 2 * 125_250 + 60_000 + 0.5],
      ['c@x', 0, 2_000 + 2 * 125_375 + 60_000 + 0.5],
      ['d@x', 0, 2_000 + 2 * 125_500 + 60_000 + 0.5],
    ]);
  });

  it('counts messages, not items: an item lagging at two providers puts two messages ahead of the next', async () => {
    const s = script([[item('a@x'), item('b@x')]], { visible: 0, total: 1_000, pageAt: [1_000] });
    await runSweep(s.ports, new DrainMeter(8), ['ses', 'resend'], options);
    expect(s.sent).toEqual([
      [
        { email: 'a@x', provider: 'ses' },
        { email: 'a@x', provider: 'resend' },
        { email: 'b@x', provider: 'ses' },
        { email: 'b@x', provider: 'resend' },
      ],
    ]);
    expect(s.postponed).toEqual([
      ['a@x', 0, leaseUntil(1_000, 1_002, 8)],
      ['b@x', 0, leaseUntil(1_000, 1_004, 8)],
    ]);
  });

  it('is written only where it moves the marker later: a marker already at or past its lease is left as it is', async () => {
    const at = 5_000;
    const lease = leased(at + LEASE.minMs);
    const s = script([[item('early@x', 1_000), item('same@x', lease), item('later@x', lease + 60_000)]], {
      pageAt: [at],
    });
    const result = await runSweep(s.ports, new DrainMeter(1_000), ['ses'], { ...options, dueBefore: at + 600_000 });
    expect(result.sent).toBe(3);
    expect(s.postponed).toEqual([['early@x', 1_000, lease]]);
  });
});

describe('a send or a lease write that fails', () => {
  it('a send the queue took in part: only the queued items leased, the sweep fails with that error, and only the queued messages count toward the rate', async () => {
    const s = script([[item('a@x'), item('b@x'), item('c@x')], [item('d@x')]], { visible: 0, pageAt: [0] });
    const refused = new SyncSendError([{ email: 'b@x', provider: 'ses' }]);
    s.ports.send = async () => {
      throw refused;
    };
    const meter = new DrainMeter(100);
    await expect(runSweep(s.ports, meter, ['ses'], options)).rejects.toBe(refused);
    expect(s.postponed.map(([email]) => email)).toEqual(['a@x', 'c@x']);
    expect(s.pagesRead()).toBe(1);
    // Two messages queued on an empty queue; one left a second later: 1 a second drained.
    expect(meter.observe(1_000, 1)).toBe(1);
  });

  it('a send that fails outright (not a partial send): the sweep fails with that error and leases nothing', async () => {
    const s = script([[item('a@x'), item('b@x')]]);
    const down = new Error('queue unreachable');
    s.ports.send = async () => {
      throw down;
    };
    await expect(runSweep(s.ports, new DrainMeter(100), ['ses'], options)).rejects.toBe(down);
    expect(s.postponed).toEqual([]);
  });

  it('a lease write that fails: the other writes of the page still land, then the sweep fails with that error and reads no further page', async () => {
    const s = script([[item('a@x'), item('b@x'), item('c@x')], [item('d@x')]]);
    const throttled = new Error('throttled');
    const tried: string[] = [];
    s.ports.postpone = async (email) => {
      tried.push(email);
      if (email === 'b@x') throw throttled;
    };
    const meter = new DrainMeter(100);
    await expect(runSweep(s.ports, meter, ['ses'], { ...options, writeConcurrency: 1 })).rejects.toBe(throttled);
    expect(tried).toEqual(['a@x', 'b@x', 'c@x']);
    expect(s.pagesRead()).toBe(1);
    expect(s.sent.flat().map((m) => m.email)).toEqual(['a@x', 'b@x', 'c@x']);
  });
});

describe('the start sweep and the first shard', () => {
  it('the start sweep (`all`) sends each lagging provider’s message with `recheck`, even for an item never sent; a plain sweep asks nothing', async () => {
    // Caught up at ses: `all` still sends only where the item lags.
    const pages = () => [[item('a@x', 0, { sync: { ses: { at: 1, lists: [], change: 1 } } })]];
    const start = script(pages());
    await runSweep(start.ports, new DrainMeter(100), ['ses', 'resend'], { ...options, all: true });
    expect(start.sent).toEqual([[{ email: 'a@x', provider: 'resend', recheck: true }]]);
    const plain = script(pages());
    await runSweep(plain.ports, new DrainMeter(100), ['ses', 'resend'], options);
    expect(plain.sent).toEqual([[{ email: 'a@x', provider: 'resend' }]]);
  });

  it('starts reading at a random shard, spread over all sixteen', async () => {
    const startShard = async (r: number) => {
      const s = script([]);
      await runSweep(s.ports, new DrainMeter(100), ['ses'], { ...options, dueBefore: 7, random: () => r });
      return s.reads;
    };
    expect(await startShard(0.5)).toEqual([{ dueBefore: 7, deadline: 40_000, startShard: 8 }]);
    expect((await startShard(0))[0]?.startShard).toBe(0);
    expect((await startShard(0.999))[0]?.startShard).toBe(15);
  });
});
