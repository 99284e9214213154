/**
 * Each import format accepts its provider's documented header and refuses every other sample: the
 * whole matrix of test/fixtures/import × formats, read through the same reader the import uses
 * (nothing is written: the reader refuses before the first row).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../lib/cli/context.js';
import { CSV_COLUMNS_V1, EXPORT_CSV_COLUMNS } from '../../../lib/cli/export-format.js';
import { importRows } from '../../../lib/cli/import-file.js';
import { formatsMatching, headerMismatch, IMPORT_FORMATS } from '../../../lib/cli/import-formats.js';

const FIXTURES = join(process.cwd(), 'test/fixtures/import');
const SAMPLES: Record<string, string> = {
  ses: 'ses.json',
  'sendgrid-bounces': 'sendgrid-bounces.csv',
  'sendgrid-blocks': 'sendgrid-blocks.csv',
  'sendgrid-spam-reports': 'sendgrid-spam-reports.csv',
  'sendgrid-invalid-emails': 'sendgrid-invalid-emails.csv',
  'sendgrid-global-unsubscribes': 'sendgrid-global-unsubscribes.csv',
  'sendgrid-group-unsubscribes': 'sendgrid-group-unsubscribes.csv',
  'mailgun-bounces': 'mailgun-bounces.csv',
  'mailgun-complaints': 'mailgun-complaints.csv',
  'mailgun-unsubscribes': 'mailgun-unsubscribes.csv',
  postmark: 'postmark.json',
  // Ratchet's own CSV export before exportFormat: its eight columns still read as --format csv.
  csv: 'ratchet-format-1.csv',
};
/** The one pair SendGrid documents with the same fields. */
const SAME_HEADER = new Set(['sendgrid-bounces|sendgrid-blocks', 'sendgrid-blocks|sendgrid-bounces']);

async function reads(file: string, format: string): Promise<'accepted' | string> {
  try {
    for await (const _row of importRows(join(FIXTURES, file), IMPORT_FORMATS.find((f) => f.name === format)!, 'column'))
      break;
    return 'accepted';
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
}

describe('the import formats refuse each other', () => {
  const cases = Object.entries(SAMPLES).flatMap(([own, file]) =>
    IMPORT_FORMATS.map((f) => [file, own, f.name] as const),
  );
  it.each(cases)('%s (a %s export) as --format %s', async (file, own, format) => {
    const result = await reads(file, format);
    if (format === own || SAME_HEADER.has(`${own}|${format}`)) expect(result).toBe('accepted');
    else {
      expect(result).toMatch(new RegExp(`^${file.replace('.', '\\.')} is not a ${format} file`));
      // Every sample is recognised for what it is (bounces and blocks name both).
      if (format !== 'jsonl') expect(result).toContain(`--format ${own}`);
    }
  });

  it('a missing date column is named, with the file-mtime way out; with it the header fits', () => {
    const bounces = IMPORT_FORMATS.find((f) => f.name === 'sendgrid-bounces')!;
    expect(headerMismatch(bounces, ['email', 'reason', 'status'])).toEqual({ missing: ['created'], unexpected: [] });
    expect(headerMismatch(bounces, ['email', 'reason', 'status'], 'file-mtime')).toBeUndefined();
    expect(formatsMatching('csv', ['status', 'created', 'reason', 'email'])).toEqual([
      'sendgrid-bounces',
      'sendgrid-blocks',
    ]);
  });

  it('Ratchet`s CSV reads its current header and format 1`s, and names the current columns for anything between', () => {
    const csv = IMPORT_FORMATS.find((f) => f.name === 'csv')!;
    expect(headerMismatch(csv, EXPORT_CSV_COLUMNS)).toBeUndefined();
    expect(headerMismatch(csv, CSV_COLUMNS_V1)).toBeUndefined();
    expect(headerMismatch(csv, [...CSV_COLUMNS_V1, 'evidence'])).toEqual({
      missing: EXPORT_CSV_COLUMNS.filter((c) => !CSV_COLUMNS_V1.includes(c as never) && c !== 'evidence'),
      unexpected: [],
    });
    // Format 1 needs its date column unless the file's time is asked for.
    const undated = CSV_COLUMNS_V1.filter((c) => c !== 'suppressedAt');
    expect(headerMismatch(csv, undated)).toBeDefined();
    expect(headerMismatch(csv, undated, 'file-mtime')).toBeUndefined();
    expect(formatsMatching('csv', CSV_COLUMNS_V1)).toEqual(['csv']);
  });
});
