/** CLI output helpers: ISO 8601 for people, stored values with --json; the progress bar only on a terminal. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { show, withIsoTimes } from '../../lib/cli/io.js';
import { progressBar } from '../../lib/cli/progress.js';
import { parseCsvRecord } from '../../lib/cli/csv.js';
import { parseSourceDate } from '../../lib/cli/import-formats.js';

describe('withIsoTimes', () => {
  it('turns epoch ms and epoch seconds in time fields into ISO 8601, nested, and leaves the rest', () => {
    const value = { suppressedAt: 1700000000000, expiresAt: 1700000000, version: 1700000000000, audit: [{ at: 1700000000123, actor: 'x' }], evidence: { k: { occurredAt: 1700000000000, status: '5.1.1' } } };
    expect(withIsoTimes(value)).toEqual({
      suppressedAt: '2023-11-14T22:13:20.000Z',
      expiresAt: '2023-11-14T22:13:20.000Z',
      version: 1700000000000,
      audit: [{ at: '2023-11-14T22:13:20.123Z', actor: 'x' }],
      evidence: { k: { occurredAt: '2023-11-14T22:13:20.000Z', status: '5.1.1' } },
    });
  });

  it('show keeps the stored numbers with json', () => {
    expect(show({ lastEventAt: 1700000000000 }, { json: true, compact: true })).toBe('{"lastEventAt":1700000000000}');
    expect(show({ lastEventAt: 1700000000000 }, { compact: true })).toBe('{"lastEventAt":"2023-11-14T22:13:20.000Z"}');
  });
});

describe('progressBar', () => {
  afterEach(() => vi.restoreAllMocks());
  it('draws on a terminal and stays silent otherwise', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const quiet = progressBar({ out: () => undefined, err: () => undefined, progressTty: false }, 'import', 10);
    quiet.tick(5);
    quiet.done();
    expect(write).not.toHaveBeenCalled();
    const bar = progressBar({ out: () => undefined, err: () => undefined, progressTty: true }, 'import', 10);
    bar.tick(5);
    bar.done();
    expect(write.mock.calls.map((c) => String(c[0]))).toContain('\rimport [###############...............] 5/10');
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
