/**
 * `ratchet suppressions import` refuses a file that is not the format it was told (exit 2, naming
 * what is missing or unexpected and the format the file looks like) and writes nothing; a date comes
 * from the file's modification time only when asked; a dry run counts exactly what a real run adds.
 * The files are laid out with the headers each provider documents (test/fixtures/import, sources in
 * docs/import-formats.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTables, ratchet, startTestStack, type TestStack } from './harness.js';

const FIXTURES = join(process.cwd(), 'test/fixtures/import');

/** [file, the wrong --format, what the message must say]: one per SendGrid list type and per provider. */
const WRONG: Array<[string, string, RegExp]> = [
  [
    'sendgrid-group-unsubscribes.csv',
    'sendgrid-bounces',
    /missing: created, reason, status; unexpected: group_id, group_name, created_at.*--format sendgrid-group-unsubscribes/,
  ],
  [
    'sendgrid-bounces.csv',
    'sendgrid-spam-reports',
    /missing: ip; unexpected: reason, status.*--format sendgrid-bounces or --format sendgrid-blocks/,
  ],
  [
    'sendgrid-blocks.csv',
    'sendgrid-invalid-emails',
    /unexpected: status.*--format sendgrid-bounces or --format sendgrid-blocks/,
  ],
  [
    'sendgrid-spam-reports.csv',
    'sendgrid-bounces',
    /missing: reason, status; unexpected: ip.*--format sendgrid-spam-reports/,
  ],
  ['sendgrid-invalid-emails.csv', 'sendgrid-bounces', /missing: status.*--format sendgrid-invalid-emails/],
  [
    'sendgrid-global-unsubscribes.csv',
    'sendgrid-group-unsubscribes',
    /missing: group_id, group_name, created_at; unexpected: created.*--format sendgrid-global-unsubscribes/,
  ],
  ['sendgrid-spam-reports.csv', 'sendgrid-global-unsubscribes', /unexpected: ip.*--format sendgrid-spam-reports/],
  ['mailgun-bounces.csv', 'mailgun-complaints', /unexpected: code, error.*--format mailgun-bounces/],
  ['mailgun-complaints.csv', 'mailgun-unsubscribes', /missing: tags.*--format mailgun-complaints/],
  [
    'mailgun-unsubscribes.csv',
    'mailgun-bounces',
    /missing: code, error; unexpected: tags.*--format mailgun-unsubscribes/,
  ],
  [
    'sendgrid-bounces.csv',
    'mailgun-bounces',
    /missing: address, code, error, created_at; unexpected: created, email, reason, status/,
  ],
  ['postmark.json', 'ses', /missing: SuppressedDestinationSummaries; unexpected: Suppressions.*--format postmark/],
  ['ses.json', 'postmark', /missing: Suppressions; unexpected: SuppressedDestinationSummaries.*--format ses/],
  ['sendgrid-bounces.csv', 'csv', /missing: status|missing: .*suppressedAt.*--format sendgrid-bounces/],
  [
    'sendgrid-bounces.csv',
    'jsonl',
    /line 1 is not a JSON object; it looks like --format sendgrid-bounces or --format sendgrid-blocks/,
  ],
  ['mailgun-bounces.csv', 'ses', /not a JSON document; it looks like --format mailgun-bounces/],
];

describe('ratchet suppressions import refuses the wrong file', () => {
  let stack: TestStack;
  let dir: string;
  let tables = 0;
  beforeAll(async () => {
    stack = await startTestStack();
    dir = mkdtempSync(join(tmpdir(), 'ratchet-refusals-'));
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (table: string, ...argv: string[]) => ratchet(stack.cliEnv({ SUPPRESSION_TABLE: table }), ...argv);
  async function freshTable(): Promise<string> {
    const name = `refusal-${++tables}`;
    await createTables(stack.config.dynamoEndpoint!, { inbox: `${name}-inbox`, suppression: name });
    return name;
  }
  const listed = async (table: string) => (await run(table, 'suppressions', 'list')).out.split('\n').filter(Boolean);

  it.each(WRONG)(
    '%s as --format %s: exit 2, one line naming the columns and the lookalike, nothing written',
    async (file, format, message) => {
      const table = await freshTable();
      const result = await run(table, 'suppressions', 'import', join(FIXTURES, file), '--format', format);
      expect(result.code).toBe(2);
      expect(result.out).toBe('');
      expect(result.err.split('\n')).toHaveLength(1);
      expect(result.err).toMatch(new RegExp(`^error: ${file.replace('.', '\\.')} is not a ${format} file`));
      expect(result.err).toMatch(message);
      expect(result.err).toMatch(/Nothing was imported$/);
      expect(await listed(table)).toEqual([]);
    },
  );

  it("needs the date column; the file's modification time only with --dates file-mtime", async () => {
    const table = await freshTable();
    const noDates = join(dir, 'bounces-no-dates.csv');
    writeFileSync(noDates, 'email,reason,status\nnodate@example.com,550 User unknown,5.1.1\n');
    const refused = await run(table, 'suppressions', 'import', noDates, '--format', 'sendgrid-bounces');
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/missing: created; .*pass --dates file-mtime\. Nothing was imported$/);
    expect(await listed(table)).toEqual([]);

    const dated = await run(
      table,
      'suppressions',
      'import',
      noDates,
      '--format',
      'sendgrid-bounces',
      '--dates',
      'file-mtime',
      '--json',
    );
    expect(dated.code).toBe(0);
    expect(JSON.parse(dated.out)).toMatchObject({ added: 1, invalid: 0 });

    // An empty date cell is an invalid row unless the file time is asked for.
    const mailgun = await run(
      await freshTable(),
      'suppressions',
      'import',
      join(FIXTURES, 'mailgun-bounces.csv'),
      '--format',
      'mailgun-bounces',
      '--json',
    );
    expect(JSON.parse(mailgun.out)).toMatchObject({ added: 1, invalid: 1 });
    expect(mailgun.err).toBe(
      'mailgun-bounces.csv:3: invalid: no date in created_at (--dates file-mtime dates it by the file)',
    );
  });

  it('a dry run counts what a real run adds, through the same merge (a repeated address counts once)', async () => {
    const file = join(dir, 'repeats.csv');
    writeFileSync(
      file,
      [
        'created,email,reason,status',
        '1443651125,twice@example.com,550 User unknown,5.1.1',
        '1443651125,TWICE@example.com,550 User unknown,5.1.1',
        '1443651126,twice@example.com,550 Again,5.1.1',
        '1443651127,other@example.com,550 User unknown,5.1.1',
        '1443651128,not-an-address,550 User unknown,5.1.1',
      ].join('\n'),
    );
    const table = await freshTable();
    const dry = JSON.parse(
      (await run(table, 'suppressions', 'import', file, '--format', 'sendgrid-bounces', '--dry-run', '--json')).out,
    );
    expect(await listed(table)).toEqual([]);
    const real = JSON.parse(
      (await run(table, 'suppressions', 'import', file, '--format', 'sendgrid-bounces', '--json')).out,
    );
    const { dryRun: _d, firstRows, ...dryCounts } = dry;
    const { dryRun: _r, ...realCounts } = real;
    expect(dryCounts).toEqual(realCounts);
    expect(realCounts).toEqual({
      added: 3,
      alreadyPresent: 1,
      invalid: 1,
      addedBy: [{ kind: 'hard_bounce', scope: 'global', count: 3 }],
      skipped: 0,
      skippedBy: [],
    });
    expect(firstRows.map((r: { email: string }) => r.email)).toEqual([
      'twice@example.com',
      'twice@example.com',
      'twice@example.com',
      'other@example.com',
    ]);
    // After the real run, a dry run finds everything present.
    const after = JSON.parse(
      (await run(table, 'suppressions', 'import', file, '--format', 'sendgrid-bounces', '--dry-run', '--json')).out,
    );
    expect(after).toMatchObject({ added: 0, alreadyPresent: 4, invalid: 1 });
  });

  it('a dry run of a topic-scoped list reports the scope, and the real run agrees', async () => {
    const table = await freshTable();
    const file = join(FIXTURES, 'sendgrid-group-unsubscribes.csv');
    const dry = await run(
      table,
      'suppressions',
      'import',
      file,
      '--format',
      'sendgrid-group-unsubscribes',
      '--dry-run',
    );
    expect(dry.out.split('\n').slice(0, 2)).toEqual([
      'would add 1, already present 0, invalid 0',
      '  unsubscribe topic sendgrid:group:1234: 1',
    ]);
    const real = JSON.parse(
      (await run(table, 'suppressions', 'import', file, '--format', 'sendgrid-group-unsubscribes', '--json')).out,
    );
    expect(real.addedBy).toEqual([{ kind: 'unsubscribe', scope: 'topic sendgrid:group:1234', count: 1 }]);
  });

  it('a line of a JSON-lines file that is not JSON is an invalid row, not a record', async () => {
    const table = await freshTable();
    const file = join(dir, 'mixed.jsonl');
    writeFileSync(
      file,
      [
        JSON.stringify({
          email: 'ok@example.com',
          status: 'suppressed',
          reasons: ['complaint'],
          suppressedAt: 1700000000000,
        }),
        '{not json',
        '[1,2]',
        JSON.stringify({ email: 'active@example.com', status: 'active', reasons: [] }),
      ].join('\n'),
    );
    const result = await run(table, 'suppressions', 'import', file, '--format', 'jsonl', '--json');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.out)).toMatchObject({ added: 1, invalid: 2 });
    expect(result.err.split('\n')).toEqual([
      'mixed.jsonl:2: invalid: not JSON',
      'mixed.jsonl:3: invalid: not a JSON object',
    ]);
  });
});
