/**
 * `ratchet suppressions export` → `import` on the real emulators, through the CLI, with records the real
 * pipeline built (signed provider webhooks through the edge and the consumer) and the operator's own
 * commands (manual suppressions, reactivations, topic changes). Into an empty table the records come
 * back field by field; into the table they came from nothing changes: no evidence, no record version.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { DemoOptions } from '../../lib/demo/types.js';
import { createTables, ratchet, startTestStack, type TestStack } from './harness.js';

/** Every field of a suppression record (docs/suppression-table.md); the rest of an item is the adapter's. */
const FIXTURES = join(process.cwd(), 'test/fixtures/import');
const FORMAT_1 = '(an export without exportFormat brings back reasons only; export again to carry it)';
const LIFT = '(it would lift a suppression this table holds; an import never lifts one)';
const RECORD_FIELDS = [
  'email',
  'status',
  'transactionalStatus',
  'reason',
  'reasons',
  'suppressedAt',
  'firstEventAt',
  'lastEventAt',
  'lastDeliveredAt',
  'reactivatedAt',
  'softBounceLimitAt',
  'evidence',
  'discounted',
  'softBounces',
  'topics',
  'audit',
] as const;

describe('suppressions export → import round trips', () => {
  let stack: TestStack;
  let dir: string;
  let tables = 0;
  /** Provider event times: a second apart, before the manual actions the CLI dates by its clock (and fresh enough to be signed). */
  let clock = Date.now() - 120_000;

  const run = (table: string, ...argv: string[]) => ratchet(stack.cliEnv({ SUPPRESSION_TABLE: table }), ...argv);
  const source = () => stack.config.suppressionTable;

  async function send(provider: string, kind: ActionableKind, email: string, options?: DemoOptions): Promise<void> {
    clock += 1000;
    const request = findDemoSigner(provider)!.sign(kind, email, stack.demo[provider]!, clock, options);
    const response = await stack.post(provider, request);
    expect(response).toMatchObject({ status: 200, body: { admitted: 1 } });
  }
  async function cli(...argv: string[]): Promise<void> {
    const result = await run(source(), ...argv);
    expect(result, result.err).toMatchObject({ code: 0 });
  }
  async function freshTable(): Promise<string> {
    const name = `roundtrip-${++tables}`;
    await createTables(stack.config.dynamoEndpoint!, { inbox: `${name}-inbox`, suppression: name });
    return name;
  }
  /** Every item of a table as stored, by address. */
  async function items(table: string): Promise<Map<string, Record<string, unknown>>> {
    const out = new Map<string, Record<string, unknown>>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await stack.clients.doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
      for (const item of page.Items ?? []) out.set(item.email as string, item);
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
  async function exported(layout: 'jsonl' | 'csv'): Promise<string> {
    const file = join(dir, `export-${++tables}.${layout}`);
    await cli('suppressions', 'export', '--format', layout, '--out', file);
    return file;
  }

  beforeAll(async () => {
    stack = await startTestStack();
    dir = mkdtempSync(join(tmpdir(), 'ratchet-roundtrip-'));
    // One provider bounce: evidence with its event key, message id and diagnostic.
    await send('mailgun', 'hard_bounce', 'bounce@example.com');
    // A SendGrid group opt-out: active for everything else, one topic unsubscribed.
    await send('sendgrid', 'unsubscribe', 'group@example.com', { topic: '42' });
    // Out of a group and back in: the later opt-in wins.
    await send('sendgrid', 'unsubscribe', 'regroup@example.com', { topic: '42' });
    await send('sendgrid', 'subscribe', 'regroup@example.com', { topic: '42' });
    // A soft bounce, a delivery that reset the budget (a delivery alone writes no record), another soft bounce.
    await send('postmark', 'soft_bounce', 'soft@example.com');
    await stack.drain();
    await send('postmark', 'delivered', 'soft@example.com');
    await send('postmark', 'soft_bounce', 'soft@example.com');
    // Three messages soft-bounced: the soft-bounce limit crossed.
    for (let i = 0; i < 3; i++) await send('mailgun', 'soft_bounce', 'limit@example.com');
    // A complaint a human then reactivated: discounted evidence, reactivatedAt and an audit entry.
    await send('ses', 'complaint', 'reactivated@example.com');
    await stack.drain();
    await cli(
      'suppressions',
      'reactivate',
      'reactivated@example.com',
      '--reason',
      'asked, "by phone"',
      '--actor',
      'ops',
    );
    await cli('suppressions', 'add', 'manual@example.com', '--reason', 'legal hold\nsecond line', '--actor', 'ops');
    await cli('suppressions', 'add', 'topic@example.com', '--topic', 'news', '--reason', 'asked', '--actor', 'ops');
    await cli(
      'suppressions',
      'reactivate',
      'topic@example.com',
      '--topic',
      'digest',
      '--reason',
      'x',
      '--actor',
      'ops',
    );
  });
  afterAll(async () => {
    await stack?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the source records hold what a round trip must carry', async () => {
    const all = await items(source());
    expect([...all.keys()].sort()).toEqual([
      'bounce@example.com',
      'group@example.com',
      'limit@example.com',
      'manual@example.com',
      'reactivated@example.com',
      'regroup@example.com',
      'soft@example.com',
      'topic@example.com',
    ]);
    expect(Object.values(all.get('bounce@example.com')!.evidence as object)).toMatchObject([
      { kind: 'hard_bounce', provider: 'mailgun', messageId: expect.any(String) },
    ]);
    expect(all.get('reactivated@example.com')).toMatchObject({ status: 'active', discounted: expect.any(Object) });
    expect(all.get('limit@example.com')).toMatchObject({ reasons: ['soft_bounce_limit'] });
    expect(all.get('soft@example.com')).toMatchObject({ lastDeliveredAt: expect.any(Number) });
    expect(all.get('regroup@example.com')).toMatchObject({ topics: { 'sendgrid:group:42': { status: 'subscribed' } } });
  });

  it.each(['jsonl', 'csv'] as const)('%s into an empty table: the same records, field by field', async (layout) => {
    const file = await exported(layout);
    const target = await freshTable();
    const result = await run(target, 'suppressions', 'import', file, '--format', layout, '--json');
    expect(result.code, result.err).toBe(0);
    const before = await items(source());
    expect(JSON.parse(result.out)).toMatchObject({ added: before.size, alreadyPresent: 0, invalid: 0, skipped: 0 });
    const after = await items(target);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [email, original] of before) {
      const copy = after.get(email)!;
      for (const field of RECORD_FIELDS) expect(copy[field], `${email}: ${field}`).toEqual(original[field]);
    }
  });

  it('JSONL then CSV into the same table: nothing changes, no evidence and no record version added', async () => {
    const jsonl = await exported('jsonl');
    const csv = await exported('csv');
    const before = await items(source());
    for (const [file, layout] of [
      [jsonl, 'jsonl'],
      [csv, 'csv'],
    ] as const) {
      const result = await run(source(), 'suppressions', 'import', file, '--format', layout);
      expect(result.code, result.err).toBe(0);
      expect(result.out).toBe(`added 0, already present ${before.size}, invalid 0`);
    }
    const after = await items(source());
    expect(Object.keys(after.get('bounce@example.com')!.evidence as object)).toHaveLength(1);
    for (const [email, item] of before) expect(after.get(email), email).toEqual(item);
  });

  it('a dry run of an export counts records by status and shows the first ones, writing nothing', async () => {
    const file = await exported('jsonl');
    const target = await freshTable();
    const result = await run(target, 'suppressions', 'import', file, '--format', 'jsonl', '--dry-run');
    expect(result.code, result.err).toBe(0);
    const before = [...(await items(source())).values()];
    const suppressed = before.filter((r) => r.status === 'suppressed').length;
    const lines = result.out.split('\n');
    expect(lines.slice(0, 4)).toEqual([
      `would add ${before.length}, already present 0, invalid 0`,
      `  record active: ${before.length - suppressed}`,
      `  record suppressed: ${suppressed}`,
      'first 5 rows:',
    ]);
    expect(lines[4]).toMatch(/^ {2}export-\d+\.jsonl:1 \S+@example\.com record (active|suppressed) \d{4}-\d\d-\d\dT/);
    expect((await items(target)).size).toBe(0);
  });

  it('an exported reactivation that would lift a suppression the table holds is skipped and named', async () => {
    const target = await freshTable();
    // The table holds a bounce for the address, dated before the export's reactivation.
    const bounces = join(dir, 'held.csv');
    writeFileSync(bounces, 'created,email,reason,status\n1443651125,reactivated@example.com,550 User unknown,5.1.1\n');
    expect((await run(target, 'suppressions', 'import', bounces, '--format', 'sendgrid-bounces')).code).toBe(0);
    const file = await exported('jsonl');
    const original = (await items(source())).get('reactivated@example.com')!;
    for (const round of [1, 2]) {
      const result = await run(target, 'suppressions', 'import', file, '--format', 'jsonl');
      expect(result.code, result.err).toBe(0);
      const size = (await items(source())).size;
      expect(result.out.split('\n')).toEqual([
        round === 1 ? `added ${size}, already present 0, invalid 0` : `added 0, already present ${size}, invalid 0`,
        `skipped 1: reactivation ${LIFT}`,
      ]);
      expect(result.err).toMatch(
        new RegExp(
          `^export-\\d+\\.jsonl:\\d+: skipped reactivation ${new Date(original.reactivatedAt as number).toISOString()}$`,
        ),
      );
    }
    const copy = (await items(target)).get('reactivated@example.com')!;
    // Still suppressed: the table's bounce, and the complaint the export had discounted, both count here.
    expect(copy).toMatchObject({ status: 'suppressed', reasons: ['complaint', 'hard_bounce'] });
    expect(copy.reactivatedAt).toBeUndefined();
    expect(copy.audit).toEqual([]);
    expect(Object.keys(copy.evidence as object)).toEqual(
      expect.arrayContaining(Object.keys(original.discounted as object)),
    );
  });

  it('a format-1 JSON-lines export imports as before, and its topic opt-out is counted as skipped, not dropped', async () => {
    const target = await freshTable();
    const file = join(FIXTURES, 'ratchet-format-1.jsonl');
    const first = await run(target, 'suppressions', 'import', file, '--format', 'jsonl');
    expect(first.code, first.err).toBe(0);
    expect(first.out.split('\n')).toEqual([
      'added 1, already present 0, invalid 0',
      `skipped 1: topic opt-out ${FORMAT_1}`,
    ]);
    expect(first.err).toBe('ratchet-format-1.jsonl:2: skipped topic opt-out sendgrid:group:42');
    const json = await run(target, 'suppressions', 'import', file, '--format', 'jsonl', '--json');
    expect(JSON.parse(json.out)).toMatchObject({
      added: 0,
      alreadyPresent: 1,
      skipped: 1,
      skippedBy: [{ what: 'topic opt-out', why: FORMAT_1.slice(1, -1), count: 1 }],
    });
    const all = await items(target);
    expect([...all.keys()]).toEqual(['old-bounce@example.com']);
    expect(Object.values(all.get('old-bounce@example.com')!.evidence as object)).toMatchObject([
      { kind: 'hard_bounce', provider: 'import', actor: 'import:ratchet-format-1.jsonl', occurredAt: 1715019118000 },
    ]);
  });

  it('a format-1 CSV export imports as before: one entry per reason, its reactivation named as skipped', async () => {
    const target = await freshTable();
    const file = join(FIXTURES, 'ratchet-format-1.csv');
    const result = await run(target, 'suppressions', 'import', file, '--format', 'csv');
    expect(result.code, result.err).toBe(0);
    expect(result.out.split('\n')).toEqual([
      'added 3, already present 0, invalid 0',
      `skipped 1: reactivation ${FORMAT_1}`,
    ]);
    expect(result.err).toBe('ratchet-format-1.csv:4: skipped reactivation 2024-05-02T10:00:00.000Z');
    const two = (await items(target)).get('old-two@example.com')!;
    expect(two).toMatchObject({ reasons: ['complaint', 'manual'], suppressedAt: Date.parse('2024-05-07T09:00:00Z') });
    expect(Object.values(two.evidence as Record<string, { kind: string; note?: string }>)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'complaint' }),
        expect.objectContaining({ kind: 'manual', note: 'soft_bounce_limit' }),
      ]),
    );
    expect((await items(target)).has('old-reactivated@example.com')).toBe(false);
  });

  it('export --topic reads topics through TOPIC_ALIASES, as the client does: group 42 stored before its alias counts as news', async () => {
    const byTopic = async (env: Record<string, string>, topic: string) => {
      const result = await ratchet(
        stack.cliEnv({ SUPPRESSION_TABLE: source(), ...env }),
        'suppressions',
        'export',
        '--format',
        'jsonl',
        '--topic',
        topic,
      );
      expect(result.code, result.err).toBe(0);
      return result.out
        .split('\n')
        .filter(Boolean)
        .map((line) => (JSON.parse(line) as { email: string }).email)
        .sort();
    };
    expect(await byTopic({}, 'news')).toEqual(['topic@example.com']);
    const aliased = { TOPIC_ALIASES: 'sendgrid:group:42=news' };
    const expected = ['group@example.com', 'regroup@example.com', 'topic@example.com'];
    expect(await byTopic(aliased, 'news')).toEqual(expected);
    // The canonical name asks the alias's question.
    expect(await byTopic(aliased, 'sendgrid:group:42')).toEqual(expected);
  });
});
