/**
 * Ratchet's own export, format 2, written and read back without the emulators: a record survives a
 * JSON line and a CSV row exactly (diagnostics with commas, quotes and line breaks included), and the
 * format-1 reader names what it skips.
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  changeTopicManually,
  reactivate,
  readExportedRecord,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { CURRENT_SUPPRESSION_SCHEMA } from '../../../lambdas/core/suppression/schema.js';
import { csvField, csvRows, parseCsvRecord } from '../../../lib/cli/csv.js';
import {
  CSV_COLUMNS_V1,
  EXPORT_CSV_COLUMNS,
  exportCsv,
  exportCsvRow,
  exportJsonLine,
  recordFromCsvRow,
} from '../../../lib/cli/export-format.js';
import { FORMAT_1_SKIP, LIFT_SKIP, ratchetRow } from '../../../lib/cli/import-ratchet.js';
import { ev, T0 } from '../suppression/support.js';

const DAY = 86_400_000;
const EMAIL = 'someone@example.com';
const DIAGNOSTIC = 'smtp; 550 5.1.1 "user unknown", mailbox\nclosed\r\nsee, "RFC" 3463';

function record(): SuppressionRecord & { schemaVersion: number } {
  let r = applyEvent(undefined, ev('complaint', T0, { messageId: 'm1' })).record;
  r = reactivate(r, { actor: 'ops', reason: 'asked, "twice"', at: T0 + DAY }).record;
  r = applyEvent(
    r,
    ev('hard_bounce', T0 + 2 * DAY, { provider: 'mailgun', detail: { diagnosticCode: DIAGNOSTIC } }),
  ).record;
  r = applyEvent(r, ev('soft_bounce', T0 + 3 * DAY, { provider: 'postmark', messageId: 'm2' })).record;
  // A topic named like a time field: the cell's times are found by key and type, not by key alone.
  r = changeTopicManually(r, EMAIL, 'at', 'unsubscribe', {
    actor: 'ops',
    reason: 'line\nbreak',
    at: T0 + 4 * DAY,
  }).record;
  r = suppressManually(r, EMAIL, { actor: 'ops', reason: 'legal, hold', at: T0 + 5 * DAY }).record;
  return { ...r, schemaVersion: CURRENT_SUPPRESSION_SCHEMA };
}

async function readCsv(lines: string[]): Promise<Array<Record<string, string>>> {
  const rows: Array<Record<string, string>> = [];
  for await (const { row } of csvRows(Readable.from(lines.join('\n').split('\n')))) rows.push(row);
  return rows;
}

describe('export format 2', () => {
  it('a JSON line reads back as the same record', () => {
    const original = record();
    const line = exportJsonLine(original);
    expect(JSON.parse(line)).toMatchObject({ exportFormat: 2, email: EMAIL });
    const { schemaVersion: _v, ...fields } = original;
    const {
      schemaVersion: _w,
      exportFormat: _f,
      ...back
    } = readExportedRecord(JSON.parse(line)) as typeof original & {
      exportFormat: number;
    };
    expect(back).toEqual(fields);
  });

  it('a CSV row is one line, ISO times throughout, and reads back as the same record', async () => {
    const original = record();
    const lines = exportCsv([original]);
    expect(lines[0]).toBe(EXPORT_CSV_COLUMNS.join(','));
    expect(lines[0]!.startsWith(`${CSV_COLUMNS_V1.join(',')},`)).toBe(true);
    // JSON escapes the diagnostic's line breaks, so a row never spans lines.
    expect(lines[1]).not.toMatch(/[\r\n]/);
    expect(lines[1]).toContain('2024-01-03T00:00:00.000Z');
    expect(lines[1]).not.toContain(String(T0 + 2 * DAY));
    const [row] = await readCsv(lines);
    expect(row!.exportFormat).toBe('2');
    expect(row!.reasons).toBe('hard_bounce;manual');
    const back = readExportedRecord(recordFromCsvRow(row!));
    expect(back).toEqual(original);
    expect(back.evidence[Object.keys(back.evidence).find((k) => k.startsWith('hard_bounce'))!]!.diagnosticCode).toBe(
      DIAGNOSTIC,
    );
  });

  it('a record without schemaVersion (the console hands over plain records) is written as today`s shape', () => {
    const { schemaVersion: _v, ...plain } = record();
    expect(exportCsvRow(plain).endsWith(`,${CURRENT_SUPPRESSION_SCHEMA},2`)).toBe(true);
  });

  it('a cell that cannot be read is named', () => {
    const row = Object.fromEntries(EXPORT_CSV_COLUMNS.map((c) => [c, ''])) as Record<string, string>;
    expect(() => recordFromCsvRow({ ...row, evidence: '{oops' })).toThrow('evidence is not JSON');
    expect(() => recordFromCsvRow({ ...row, lastEventAt: 'yesterday' })).toThrow('lastEventAt yesterday is not a time');
    expect(() => recordFromCsvRow({ ...row, audit: '[{"at":"soon"}]' })).toThrow('at soon is not a time');
    expect(() => recordFromCsvRow({ ...row, schemaVersion: 'v5' })).toThrow('schemaVersion v5 is not a version number');
  });
});

describe('csvField and parseCsvRecord', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r\nlf', '"cr\r\nlf"'],
    ['', ''],
  ])('%j is written as %j and read back', (value, written) => {
    expect(csvField(value)).toBe(written);
    expect(parseCsvRecord(`x,${written},y`)).toEqual(['x', value.replace(/\r$/, ''), 'y']);
  });

  it('a quoted line break spans lines and is one field', async () => {
    const rows = await readCsv(['a,b', `${csvField('one, "1"\ntwo')},2`]);
    expect(rows).toEqual([{ a: 'one, "1"\ntwo', b: '2' }]);
  });
});

describe('the jsonl and csv readers', () => {
  const jsonl = ratchetRow('jsonl');

  it('format 1 (no exportFormat): one entry per reason, and what the reasons do not carry is skipped by name', () => {
    const line = {
      email: 'group@example.com',
      status: 'active',
      reasons: [],
      reactivatedAt: T0,
      topics: { 'sendgrid:group:42': { status: 'unsubscribed', changedAt: T0, evidence: {} } },
      softBounces: { 'ses#e1': {} },
    };
    expect(jsonl(line)).toEqual({
      entries: [],
      skipped: [
        { what: 'topic opt-out', detail: 'sendgrid:group:42', why: FORMAT_1_SKIP },
        { what: 'reactivation', detail: new Date(T0).toISOString(), why: FORMAT_1_SKIP },
        { what: 'soft bounce', detail: 'ses#e1', why: FORMAT_1_SKIP },
      ],
    });
    expect(
      jsonl({ email: 'x@example.com', status: 'suppressed', reasons: ['soft_bounce_limit'], suppressedAt: T0 }),
    ).toEqual({
      entries: [{ email: 'x@example.com', kind: 'manual', date: T0, note: 'soft_bounce_limit' }],
      skipped: [],
    });
  });

  it('format 2: the whole record, or the reason it cannot be read; a newer format is refused', () => {
    const original = record();
    const line = JSON.parse(exportJsonLine(original));
    expect(jsonl(line)).toEqual({ record: readExportedRecord(line) });
    expect(jsonl({ ...line, audit: 'none' })).toEqual({ invalid: 'record is malformed: audit' });
    expect(jsonl({ ...line, exportFormat: 3 })).toEqual({
      invalid: 'exportFormat 3: this version of Ratchet reads 1 and 2',
    });
  });
});

describe('docs/import-formats.md', () => {
  const doc = readFileSync('docs/import-formats.md', 'utf8');
  it('quotes both CSV headers and the reasons for skipping as the code has them', () => {
    expect(doc).toContain(`\`${EXPORT_CSV_COLUMNS.join(',')}\``);
    expect(doc).toContain(`\`${CSV_COLUMNS_V1.join(',')}\``);
    expect(doc).toContain(`skipped 1: topic opt-out (${FORMAT_1_SKIP})`);
    expect(doc).toContain(`\`${'exportFormat'}\` 2`);
    expect(doc.replace(/\s+/g, ' ')).toContain('reactivation would lift a suppression this table holds');
    expect(LIFT_SKIP).toContain('would lift a suppression this table holds');
  });
});
