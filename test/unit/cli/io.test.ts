/** CLI output helpers: ISO 8601 for people, stored values with --json; the progress bar only on a terminal. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { leased } from '../../../lambdas/core/sync/lease.js';
import { DEAD_DUE_MS } from '../../../lambdas/core/sync/ledger.js';
import { parseCsvRecord } from '../../../lib/cli/csv.js';
import { parseSourceDate } from '../../../lib/cli/import-formats.js';
import { show, withIsoTimes } from '../../../lib/cli/io.js';
import { progressBar } from '../../../lib/cli/progress.js';

describe('withIsoTimes', () => {
  it('turns epoch ms and epoch seconds in time fields into ISO 8601, nested, and leaves the rest', () => {
    const value = {
      suppressedAt: 1700000000000,
      expiresAt: 1700000000,
      version: 1700000000000,
      audit: [{ at: 1700000000123, actor: 'x' }],
      evidence: { k: { occurredAt: 1700000000000, status: '5.1.1' } },
    };
    expect(withIsoTimes(value)).toEqual({
      suppressedAt: '2023-11-14T22:13:20.000Z',
      expiresAt: '2023-11-14T22:13:20.000Z',
      version: 1700000000000,
      audit: [{ at: '2023-11-14T22:13:20.123Z', actor: 'x' }],
      evidence: { k: { occurredAt: '2023-11-14T22:13:20.000Z', status: '5.1.1' } },
    });
  });

  it("shows the sync outbox marker and a retry's start as times: a due time, a lease, a parked marker", () => {
    const record = (syncDue: number) => ({
      syncPending: 'pending#3',
      syncDue,
      syncChange: 4,
      sync: { sendgrid: { at: 1700000000000, lists: [], retrying: { change: 4, since: 1700000000123 } } },
    });
    expect(withIsoTimes(record(1700000060000))).toEqual({
      syncPending: 'pending#3',
      syncDue: '2023-11-14T22:14:20.000Z',
      syncChange: 4,
      sync: {
        sendgrid: {
          at: '2023-11-14T22:13:20.000Z',
          lists: [],
          retrying: { change: 4, since: '2023-11-14T22:13:20.123Z' },
        },
      },
    });
    // A lease ends half a millisecond past a whole one: the sweeper sent a message for the item.
    expect(withIsoTimes(record(leased(1700000120000)))).toMatchObject({
      syncDue: 'leased until 2023-11-14T22:15:20.000Z (a message was sent)',
    });
    // Parked: indexed for `sync status`, never due. Never "+275760-09-13".
    const parked = withIsoTimes(record(DEAD_DUE_MS)) as { syncDue: string };
    expect(parked.syncDue).toBe('parked: never due (a dead-lettered change or a refused removal)');
    // --json keeps every stored number as it is.
    expect(JSON.parse(show(record(leased(1700000120000)), { json: true }))).toEqual(record(1700000120000.5));
  });

  it('show keeps the stored numbers with json', () => {
    expect(show({ lastEventAt: 1700000000000 }, { json: true, compact: true })).toBe('{"lastEventAt":1700000000000}');
    expect(show({ lastEventAt: 1700000000000 }, { compact: true })).toBe('{"lastEventAt":"2023-11-14T22:13:20.000Z"}');
  });
});

describe('progressBar', () => {
  /** A terminal-like stream that records what was drawn. */
  function terminal() {
    const written: string[] = [];
    const stream = new PassThrough() as unknown as NodeJS.WriteStream & { written: string[] };
    Object.assign(stream, {
      isTTY: true,
      columns: 120,
      written,
      write: (chunk: string) => written.push(String(chunk)) > 0,
      cursorTo: () => true,
      moveCursor: () => true,
      clearLine: () => true,
      clearScreenDown: () => true,
    });
    return stream;
  }
  const io = (tty: boolean, err: string[] = []) => ({
    out: () => undefined,
    err: (l: string) => err.push(l),
    progressTty: tty,
  });

  it('draws n/N, percent, rate and ETA on a terminal, and prints logged lines above the bar', () => {
    const stream = terminal();
    const bar = progressBar(io(true), 'import', 10, stream);
    bar.tick(5);
    bar.log('file.csv:3: invalid: not an email address');
    bar.tick(5);
    bar.done();
    const drawn = stream.written.join('');
    expect(drawn).toMatch(/import \[[█░]{30}\] 10\/10 100% \| [\d.]+\/s \| ETA 0s/);
    expect(drawn).toContain('file.csv:3: invalid: not an email address\n');
  });

  it('without a total shows the count and the rate; a total learnt later turns it into n/N', () => {
    const stream = terminal();
    const bar = progressBar(io(true), 'export', undefined, stream);
    bar.tick(3);
    bar.done();
    expect(stream.written.join('')).toMatch(/export 3 \| [\d.]+\/s/);
    const later = terminal();
    const known = progressBar(io(true), 'redrive', undefined, later);
    known.total(4);
    known.tick(2);
    known.done();
    expect(later.written.join('')).toMatch(/redrive \[[█░]{30}\] 2\/4 50%/);
  });

  it('stays silent off a terminal, where logged lines go to stderr as they are', () => {
    const stream = terminal();
    const err: string[] = [];
    const bar = progressBar(io(false, err), 'import', 10, stream);
    bar.tick(5);
    bar.log('a line');
    bar.done();
    expect(stream.written).toEqual([]);
    expect(err).toEqual(['a line']);
  });
});

describe('import parsing', () => {
  it('reads RFC 4180 CSV: quotes, doubled quotes, commas, and an open quote asks for the next line', () => {
    expect(parseCsvRecord('a,"b, c","say ""hi""",')).toEqual(['a', 'b, c', 'say "hi"', '']);
    expect(parseCsvRecord('a,"open')).toBeUndefined();
    expect(parseCsvRecord('a,"open\nclosed"')).toEqual(['a', 'open\nclosed']);
  });

  it('reads source dates: seconds, ms, ISO 8601 and RFC 2822; refuses garbage', () => {
    expect(parseSourceDate(1443651125)).toBe(1443651125000);
    expect(parseSourceDate('1443651125000')).toBe(1443651125000);
    expect(parseSourceDate('2019-12-10T08:58:33-05:00')).toBe(Date.UTC(2019, 11, 10, 13, 58, 33));
    expect(parseSourceDate('Mon, 06 May 2024 18:11:58 UTC')).toBe(Date.UTC(2024, 4, 6, 18, 11, 58));
    expect(parseSourceDate('yesterday')).toBeUndefined();
    expect(parseSourceDate(0)).toBeUndefined();
  });
});
