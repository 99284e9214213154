/**
 * Reads an import file row by row, after checking its header against the format's documented columns
 * (lib/cli/import-formats.ts). The header is checked before the first row is handed on, so a refused
 * file writes nothing. A line that cannot be read (not JSON in a JSON-lines file) is an invalid row,
 * never a row with made-up fields.
 */
import { createReadStream, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { isRecord } from '../../lambdas/core/json.js';
import { InputError } from './context.js';
import { csvRows, parseCsvRecord } from './csv.js';
import {
  type DateSource,
  describeMismatch,
  formatsMatching,
  headerMismatch,
  IMPORT_FORMATS,
  type ImportFormat,
} from './import-formats.js';

export type ImportRow = { line: number; row: Record<string, unknown> } | { line: number; invalid: string };

export async function* importRows(path: string, format: ImportFormat, dates: DateSource): AsyncGenerator<ImportRow> {
  const file = basename(path);
  const check = (header: readonly string[], lookalikes: () => string[]) => {
    const mismatch = headerMismatch(format, header, dates);
    if (mismatch) throw new InputError(describeMismatch(file, format, mismatch, lookalikes()));
  };
  if (format.layout === 'json') {
    yield* jsonRows(path, format, check);
    return;
  }
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  if (format.layout === 'csv') {
    let seen = false;
    yield* csvRows(lines, (header) => {
      seen = true;
      if (/^[[{]/.test(header[0] ?? ''))
        throw new InputError(
          `${file} is not a ${format.name} file: it is JSON, not CSV${jsonHint(path)}. Nothing was imported`,
        );
      check(header, () => formatsMatching('csv', header));
    });
    if (!seen)
      throw new InputError(
        `${file} is empty: a ${format.name} file starts with the header ${format.columns.join(',')}`,
      );
    return;
  }
  let line = 0;
  let first = true;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    const parsed = parseJson(text);
    if (first) {
      first = false;
      // The first record stands for the header: a file that is not JSON lines at all is refused whole.
      if (!isRecord(parsed))
        throw new InputError(
          `${file} is not a ${format.name} file: line ${line} is not a JSON object${lookalikeHint(text)}. Nothing was imported`,
        );
      check(Object.keys(parsed), () => []);
    }
    yield isRecord(parsed)
      ? { line, row: parsed }
      : { line, invalid: parsed === undefined ? 'not JSON' : 'not a JSON object' };
  }
}

function* jsonRows(
  path: string,
  format: ImportFormat,
  check: (header: readonly string[], lookalikes: () => string[]) => void,
): Generator<ImportRow> {
  const file = basename(path);
  const text = readFileSync(path, 'utf8');
  const document = parseJson(text);
  if (!isRecord(document))
    throw new InputError(
      `${file} is not a ${format.name} file: not a JSON document${lookalikeHint(text.split('\n')[0] ?? '')}. Nothing was imported`,
    );
  const { key, alongside = [] } = format.list!;
  const extra = Object.keys(document).filter((k) => k !== key && !alongside.includes(k));
  if (!(key in document) || extra.length > 0) {
    const mismatch = { missing: key in document ? [] : [key], unexpected: extra };
    throw new InputError(
      describeMismatch(file, format, mismatch, jsonLookalikes(document), `a document {"${key}": [...]}`),
    );
  }
  const list = document[key];
  if (!Array.isArray(list))
    throw new InputError(`${file} is not a ${format.name} file: ${key} is not a list. Nothing was imported`);
  if (list.length > 0) {
    const keys = [...new Set(list.flatMap((item) => (isRecord(item) ? Object.keys(item) : [])))];
    check(keys, () => jsonLookalikes(document));
  }
  let index = 0;
  for (const item of list) {
    index++;
    yield isRecord(item) ? { line: index, row: item } : { line: index, invalid: 'not a JSON object' };
  }
}

/** "; it looks like --format x" for a JSON document one of the JSON formats reads. */
function jsonHint(path: string): string {
  const document = parseJson(readFileSync(path, 'utf8'));
  const names = isRecord(document) ? jsonLookalikes(document) : [];
  return names.length > 0 ? `; it looks like ${names.map((n) => `--format ${n}`).join(' or ')}` : '';
}

/** The JSON formats whose list this document holds, with entries of that format's columns. */
function jsonLookalikes(document: Record<string, unknown>): string[] {
  return IMPORT_FORMATS.filter((f) => {
    const list = f.layout === 'json' && f.list ? document[f.list.key] : undefined;
    if (!Array.isArray(list)) return false;
    const keys = [...new Set(list.flatMap((item) => (isRecord(item) ? Object.keys(item) : [])))];
    return list.length === 0 || headerMismatch(f, keys) === undefined;
  }).map((f) => f.name);
}

/** "; it looks like --format x" when the first line is the header of a CSV format (or a Ratchet JSON line). */
function lookalikeHint(firstLine: string): string {
  const parsed = parseJson(firstLine);
  if (isRecord(parsed) && 'email' in parsed && 'status' in parsed) return '; it looks like --format jsonl';
  const header = parseCsvRecord(firstLine.replace(/^\uFEFF/, ''))?.map((f) => f.trim()) ?? [];
  const names = formatsMatching('csv', header);
  return names.length > 0 ? `; it looks like ${names.map((n) => `--format ${n}`).join(' or ')}` : '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
