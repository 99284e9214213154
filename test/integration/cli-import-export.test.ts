/**
 * `ratchet suppressions import|export` on the real emulators: every provider format, with samples laid
 * out as the provider documents them (test/fixtures/import, sources in docs/import-formats.md), becomes
 * evidence of the matching kind with actor `import:<file>` and the entry's own date; a second run adds
 * nothing; an import never lifts a suppression; and each format survives export → import (JSONL, CSV).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_SUPPRESSION_SCHEMA } from '../../lambdas/core/suppression/schema.js';
import { createTables, ratchet, startTestStack, type TestStack } from './harness.js';

const FIXTURES = join(process.cwd(), 'test/fixtures/import');

/** Expected per format: address → [kind, entry date (epoch ms) or undefined for "file time"]. */
const EXPECTED: Record<
  string,
  {
    file: string;
    added: number;
    invalid: number;
    entries: Record<string, [string, number | undefined]>;
    topics?: string[];
    args?: string[];
  }
> = {
  ses: {
    file: 'ses.json',
    added: 2,
    invalid: 1,
    entries: {
      'ses-bounce@example.com': ['hard_bounce', 1700000000000],
      'ses-complaint@example.com': ['complaint', 1700000000000],
    },
  },
  'sendgrid-bounces': {
    file: 'sendgrid-bounces.csv',
    added: 2,
    invalid: 0,
    entries: {
      'sg-bounce@example.com': ['hard_bounce', 1443651125000],
      'sg-bounce2@example.com': ['hard_bounce', 1443651141000],
    },
  },
  'sendgrid-blocks': {
    file: 'sendgrid-blocks.csv',
    added: 1,
    invalid: 0,
    entries: { 'sg-block@example.com': ['soft_bounce', 1443651154000] },
  },
  'sendgrid-spam-reports': {
    file: 'sendgrid-spam-reports.csv',
    added: 1,
    invalid: 0,
    entries: { 'sg-spam@example.com': ['complaint', 1443651141000] },
  },
  'sendgrid-invalid-emails': {
    file: 'sendgrid-invalid-emails.csv',
    added: 1,
    invalid: 1,
    entries: { 'sg-invalid@example.com': ['hard_bounce', 1443651141000] },
  },
  'sendgrid-global-unsubscribes': {
    file: 'sendgrid-global-unsubscribes.csv',
    added: 1,
    invalid: 0,
    entries: { 'sg-unsub@example.com': ['unsubscribe', 1443651141000] },
  },
  'sendgrid-group-unsubscribes': {
    file: 'sendgrid-group-unsubscribes.csv',
    added: 1,
    invalid: 0,
    entries: {},
    topics: ['sg-group@example.com'],
  },
  // The second row has no date: it is dated by the file only when asked to (--dates file-mtime).
  'mailgun-bounces': {
    file: 'mailgun-bounces.csv',
    args: ['--dates', 'file-mtime'],
    added: 2,
    invalid: 0,
    entries: {
      'mg-bounce@example.com': ['hard_bounce', 1715019118000],
      'mg-bounce2@example.com': ['hard_bounce', undefined],
    },
  },
  'mailgun-complaints': {
    file: 'mailgun-complaints.csv',
    added: 1,
    invalid: 0,
    entries: { 'mg-complaint@example.com': ['complaint', Date.parse('2024-05-07T09:00:00Z')] },
  },
  'mailgun-unsubscribes': {
    file: 'mailgun-unsubscribes.csv',
    added: 2,
    invalid: 0,
    entries: { 'mg-unsub@example.com': ['unsubscribe', Date.parse('2024-05-08T10:30:00Z')] },
    topics: ['mg-tagged@example.com'],
  },
  postmark: {
    file: 'postmark.json',
    added: 4,
    invalid: 0,
    entries: {
      'pm-bounce@example.com': ['hard_bounce', Date.parse('2019-12-10T13:58:33Z')],
      'pm-spam@example.com': ['complaint', Date.parse('2019-12-11T13:58:33Z')],
      'pm-unsub@example.com': ['unsubscribe', Date.parse('2019-12-12T13:58:33Z')],
      'pm-manual@example.com': ['manual', Date.parse('2019-12-13T13:58:33Z')],
    },
  },
};

describe('ratchet suppressions import/export', () => {
  let stack: TestStack;
  let dir: string;
  let tables = 0;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = mkdtempSync(join(tmpdir(), 'ratchet-import-'));
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (table: string, ...argv: string[]) => ratchet(stack.cliEnv({ SUPPRESSION_TABLE: table }), ...argv);
  async function freshTable(): Promise<string> {
    const name = `import-${++tables}`;
    await createTables(stack.config.dynamoEndpoint!, { inbox: `${name}-inbox`, suppression: name });
    return name;
  }
  async function get(table: string, email: string) {
    const result = await run(table, 'suppressions', 'get', email, '--json');
    return result.code === 0 ? (JSON.parse(result.out) ?? undefined) : undefined;
  }

  it.each(Object.entries(EXPECTED))(
    '%s: evidence of the matching kind, idempotent, and a JSONL and CSV round trip',
    async (format, expected) => {
      const table = await freshTable();
      const file = join(FIXTURES, expected.file);
      const args = expected.args ?? [];
      const first = await run(table, 'suppressions', 'import', file, '--format', format, ...args, '--json');
      expect(first.code).toBe(0);
      const summary = JSON.parse(first.out);
      expect(summary).toMatchObject({
        dryRun: false,
        added: expected.added,
        alreadyPresent: 0,
        invalid: expected.invalid,
      });
      expect(summary.addedBy.reduce((n: number, r: { count: number }) => n + r.count, 0)).toBe(expected.added);

      for (const [email, [kind, date]] of Object.entries(expected.entries)) {
        const record = await get(table, email);
        const map = kind === 'soft_bounce' ? record.softBounces : record.evidence;
        const entries = Object.entries(map as Record<string, Record<string, unknown>>);
        expect(entries).toHaveLength(1);
        const [key, entry] = entries[0]!;
        expect(key).toMatch(kind === 'soft_bounce' ? /^import#/ : new RegExp(`^${kind}:import#`));
        expect(entry).toMatchObject({
          kind,
          provider: 'import',
          actor: `import:${expected.file}`,
          providerEventType: format,
        });
        if (date !== undefined) expect(entry.occurredAt).toBe(date);
        expect(record.status).toBe(kind === 'soft_bounce' ? 'active' : 'suppressed');
      }
      for (const email of expected.topics ?? []) {
        const record = await get(table, email);
        // A scoped list is a topic opt-out: the address stays sendable for everything else.
        expect(record.status).toBe('active');
        expect(Object.values(record.topics as Record<string, { status: string }>).map((t) => t.status)).toEqual([
          'unsubscribed',
        ]);
      }

      const again = await run(table, 'suppressions', 'import', file, '--format', format, ...args, '--json');
      expect(JSON.parse(again.out)).toEqual({
        dryRun: false,
        added: 0,
        alreadyPresent: expected.added,
        invalid: expected.invalid,
        addedBy: [],
        skipped: 0,
        skippedBy: [],
      });

      for (const layout of ['jsonl', 'csv'] as const) {
        const exported = join(dir, `${format}.${layout}`);
        expect((await run(table, 'suppressions', 'export', '--format', layout, '--out', exported)).code).toBe(0);
        const target = await freshTable();
        const back = await run(target, 'suppressions', 'import', exported, '--format', layout, '--json');
        expect(back.code).toBe(0);
        expect(JSON.parse(back.out)).toMatchObject({ invalid: 0 });
        for (const email of Object.keys(expected.entries)) {
          const original = await get(table, email);
          const copy = await get(target, email);
          expect(copy?.status ?? 'active').toBe(original.status);
          expect(copy?.reasons ?? []).toEqual(original.reasons);
          if (original.status === 'suppressed') expect(copy.suppressedAt).toBe(original.suppressedAt);
        }
      }
    },
  );

  it('never lifts a suppression, and does not count evidence dated before a reactivation', async () => {
    const table = await freshTable();
    expect(
      (await run(table, 'suppressions', 'add', 'pm-bounce@example.com', '--reason', 'legal', '--actor', 'ops')).code,
    ).toBe(0);
    const file = join(FIXTURES, 'postmark.json');
    await run(table, 'suppressions', 'import', file, '--format', 'postmark');
    const record = await get(table, 'pm-bounce@example.com');
    expect(record.status).toBe('suppressed');
    expect(record.reasons).toEqual(['hard_bounce', 'manual']);

    await run(table, 'suppressions', 'reactivate', 'pm-spam@example.com', '--reason', 'asked', '--actor', 'ops');
    const reimport = await run(table, 'suppressions', 'import', file, '--format', 'postmark', '--json');
    expect(JSON.parse(reimport.out)).toMatchObject({ added: 0 });
    expect((await get(table, 'pm-spam@example.com')).status).toBe('active');
  });

  it('--dry-run writes nothing and reports what would be added per kind and scope, and the first rows', async () => {
    const table = await freshTable();
    const dry = await run(table, 'suppressions', 'import', join(FIXTURES, 'ses.json'), '--format', 'ses', '--dry-run');
    expect(dry.code).toBe(0);
    expect(dry.out.split('\n')).toEqual([
      'would add 2, already present 0, invalid 1',
      '  complaint global: 1',
      '  hard_bounce global: 1',
      'first 2 rows:',
      '  ses.json:1 ses-bounce@example.com hard_bounce global 2023-11-14T22:13:20.000Z',
      '  ses.json:2 ses-complaint@example.com complaint global 2023-11-14T22:13:20.000Z',
    ]);
    expect(dry.err).toContain('ses.json:3: invalid: not an email address');
    expect(await get(table, 'ses-bounce@example.com')).toBeUndefined();
  });

  it('export filters by status, streams CSV with ISO times, and import rejects an unknown format (exit 2)', async () => {
    const table = await freshTable();
    await run(table, 'suppressions', 'import', join(FIXTURES, 'sendgrid-blocks.csv'), '--format', 'sendgrid-blocks');
    await run(
      table,
      'suppressions',
      'import',
      join(FIXTURES, 'sendgrid-spam-reports.csv'),
      '--format',
      'sendgrid-spam-reports',
    );
    const suppressed = await run(table, 'suppressions', 'export', '--format', 'jsonl', '--status', 'suppressed');
    expect(suppressed.out.split('\n').map((l) => JSON.parse(l).email)).toEqual(['sg-spam@example.com']);
    const csv = (await run(table, 'suppressions', 'export', '--format', 'csv')).out.split('\n');
    // Format 2 (docs/import-formats.md): format 1's eight columns first, then the rest of the record.
    expect(csv[0]).toBe(
      'email,status,reason,reasons,suppressedAt,firstEventAt,lastEventAt,reactivatedAt,' +
        'transactionalStatus,lastDeliveredAt,softBounceLimitAt,evidence,discounted,softBounces,topics,audit,schemaVersion,exportFormat',
    );
    const spam = csv.find((row) => row.startsWith('sg-spam@example.com,'))!;
    expect(spam).toMatch(
      /^sg-spam@example\.com,suppressed,complaint,complaint,2015-09-30T22:12:21\.000Z,2015-09-30T22:12:21\.000Z,2015-09-30T22:12:21\.000Z,,suppressed,,,"\{""complaint:import#[0-9a-f]{24}"":\{""kind"":""complaint"",""occurredAt"":""2015-09-30T22:12:21\.000Z"",/,
    );
    expect(spam.endsWith(`,,{},{},[],${CURRENT_SUPPRESSION_SCHEMA},2`)).toBe(true);
    const bad = await run(table, 'suppressions', 'import', join(FIXTURES, 'ses.json'), '--format', 'mailchimp');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(
      /^error: option '--format <format>' argument 'mailchimp' is invalid\. Allowed choices are jsonl, csv, ses, /,
    );
    writeFileSync(join(dir, 'wrong.json'), '{"items":[]}');
    const wrong = await run(table, 'suppressions', 'import', join(dir, 'wrong.json'), '--format', 'ses');
    expect(wrong.code).toBe(2);
    expect(wrong.err).toBe(
      'error: wrong.json is not a ses file (missing: SuppressedDestinationSummaries; unexpected: items; expected a document {"SuppressedDestinationSummaries": [...]}); ' +
        'it matches no format in docs/import-formats.md. Nothing was imported',
    );
    expect(readFileSync(join(FIXTURES, 'ses.json'), 'utf8')).toContain('SuppressedDestinationSummaries');
  });
});
