/**
 * `ratchet suppressions export|import`: take every record out (parallel scan segments, streamed), and
 * bring another system's suppression list in as evidence. An import only ever adds evidence, so it can
 * be re-run safely (a second run reports everything as already present) and never lifts a suppression.
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { Command, Option } from 'commander';
import type { NormalizedEvent } from '../../../lambdas/core/event.js';
import { normalizeRecipient } from '../../../lambdas/core/event.js';
import { applyEvent, importEntry, IMPORT_PROVIDER, policyFromSettings, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import type { Context } from '../context.js';
import { csvField, csvRows } from '../csv.js';
import { IMPORT_FORMAT_NAMES, IMPORT_FORMATS, parseSourceDate, type ImportFormat, type ParsedEntry } from '../import-formats.js';
import { withIsoTimes } from '../io.js';
import { progressBar } from '../progress.js';
import type { Run } from '../program.js';
import { STATUSES } from './suppressions.js';

const EXPORT_SEGMENTS = 4;
const IMPORT_CONCURRENCY = 16;
/** The CSV export's columns: the record's public contract (docs/suppression-table.md), times as ISO 8601. */
export const CSV_COLUMNS = ['email', 'status', 'reason', 'reasons', 'suppressedAt', 'firstEventAt', 'lastEventAt', 'reactivatedAt'] as const;

export function addTransferCommands(command: Command, ctx: Context, run: Run): void {
  command
    .command('export')
    .description('every record, streamed with parallel scan segments, as JSON lines (epoch ms) or CSV (ISO 8601)')
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).makeOptionMandatory())
    .addOption(new Option('--status <status>', 'only records with this status').choices(STATUSES))
    .option('--topic <topic>', 'only records with evidence for this topic')
    .option('--out <file>', 'write here instead of stdout')
    .action(
      run(async (options: { format: 'jsonl' | 'csv'; status?: (typeof STATUSES)[number]; topic?: string; out?: string }) => {
        const file = options.out ? createWriteStream(options.out) : undefined;
        const write = async (line: string) => {
          if (!file) return ctx.io.out(line);
          if (!file.write(`${line}\n`)) await new Promise<void>((r) => file.once('drain', () => r()));
        };
        const progress = progressBar(ctx.io, 'export', undefined);
        let count = 0;
        if (options.format === 'csv') await write(CSV_COLUMNS.join(','));
        await ctx.suppressions().scan({ status: options.status, segments: EXPORT_SEGMENTS }, async (records) => {
          for (const record of records) {
            if (options.topic && !hasTopic(record, options.topic)) continue;
            await write(options.format === 'jsonl' ? JSON.stringify(record) : csvLine(record));
            count++;
          }
          progress.tick(records.length);
        });
        progress.done();
        if (file) await new Promise<void>((resolve, reject) => file.end((error?: Error | null) => (error ? reject(error) : resolve())));
        ctx.io.err(`exported ${count} records`);
        return 0;
      }),
    );
  command
    .command('import')
    .description('add another suppression list as evidence (actor import:<file name>); never lifts a suppression')
    .argument('<file>', 'the file to read')
    .addOption(new Option('--format <format>', 'the file layout (docs/import-formats.md)').choices(IMPORT_FORMAT_NAMES).makeOptionMandatory())
    .option('--dry-run', 'report what would change, write nothing')
    .option('--json', 'the summary as JSON')
    .action(
      run(async (path: string, options: { format: string; dryRun?: boolean; json?: boolean }) => {
        const format = IMPORT_FORMATS.find((f) => f.name === options.format)!;
        const summary = await importFile(ctx, path, format, options.dryRun === true);
        const { added, alreadyPresent, invalid } = summary;
        ctx.io.out(
          options.json
            ? JSON.stringify({ dryRun: options.dryRun === true, ...summary })
            : `${options.dryRun ? 'would add' : 'added'} ${added}, already present ${alreadyPresent}, invalid ${invalid}`,
        );
        return 0;
      }),
    );
}

function csvLine(record: SuppressionRecord): string {
  const shown = withIsoTimes(record) as Record<string, unknown>;
  return CSV_COLUMNS.map((name) => csvField(shown[name])).join(',');
}

/** Topic-scoped evidence carries `topic` (issue 10's contract); generic so this file names no stored field beyond it. */
function hasTopic(record: SuppressionRecord, topic: string): boolean {
  return JSON.stringify(record).includes(`"topic":${JSON.stringify(topic)}`);
}

export interface ImportSummary {
  added: number;
  alreadyPresent: number;
  invalid: number;
}

async function importFile(ctx: Context, path: string, format: ImportFormat, dryRun: boolean): Promise<ImportSummary> {
  const actor = `import:${basename(path)}`;
  const fileTime = statSync(path).mtimeMs;
  const store = ctx.suppressions();
  const summary: ImportSummary = { added: 0, alreadyPresent: 0, invalid: 0 };
  const progress = progressBar(ctx.io, 'import', undefined);
  const inFlight = new Set<Promise<void>>();
  const invalid = (line: number, why: string) => {
    summary.invalid++;
    if (summary.invalid <= 20) ctx.io.err(`${basename(path)}:${line}: invalid: ${why}`);
  };

  const handle = async (entry: ParsedEntry, line: number) => {
    let email: string;
    try {
      email = normalizeRecipient(entry.email);
    } catch {
      return invalid(line, 'not an email address');
    }
    const occurredAt = entry.date === undefined ? Math.round(fileTime) : parseSourceDate(entry.date);
    if (occurredAt === undefined) return invalid(line, `unreadable date ${String(entry.date)}`);
    const entryId = createHash('sha256')
      .update([format.name, email, entry.kind, entry.topic ?? '', String(entry.date ?? '')].join('\n'))
      .digest('hex')
      .slice(0, 24);
    let changed: boolean;
    if (dryRun) {
      changed = await wouldChange(ctx, email, entry, occurredAt, entryId, actor, format.name);
    } else if (entry.topic) {
      // Topic-scoped: an unsubscribe event with its topic, through the same path as a provider's.
      const event = { provider: IMPORT_PROVIDER, eventId: entryId, recipient: email, kind: entry.kind, occurredAt, detail: { providerEventType: format.name }, raw: '', topic: entry.topic };
      changed = (await store.apply(event as Omit<NormalizedEvent, 'raw'>)).changed;
    } else {
      changed = (await store.importEntry(email, { kind: entry.kind, occurredAt, actor, entryId, note: entry.note, source: format.name })).changed;
    }
    if (changed) summary.added++;
    else summary.alreadyPresent++;
    progress.tick();
  };

  const submit = async (entry: ParsedEntry, line: number) => {
    const task: Promise<void> = handle(entry, line).finally(() => inFlight.delete(task));
    inFlight.add(task);
    if (inFlight.size >= IMPORT_CONCURRENCY) await Promise.race(inFlight);
  };

  try {
    for await (const { row, line } of rows(path, format)) {
      const mapped = format.map(row);
      if (!Array.isArray(mapped)) {
        invalid(line, mapped.invalid);
        continue;
      }
      for (const entry of mapped) await submit(entry, line);
    }
    await Promise.all(inFlight);
  } finally {
    progress.done();
  }
  return summary;
}

async function wouldChange(ctx: Context, email: string, entry: ParsedEntry, occurredAt: number, entryId: string, actor: string, source: string): Promise<boolean> {
  const record = await ctx.suppressions().get(email);
  const { version: _v, updatedAt: _u, ...current } = (record ?? {}) as SuppressionRecord & { version?: number; updatedAt?: number };
  const policy = policyFromSettings(ctx.env);
  const existing = record ? (current as SuppressionRecord) : undefined;
  if (entry.topic) {
    const event = { provider: IMPORT_PROVIDER, eventId: entryId, recipient: email, kind: entry.kind, occurredAt, detail: {}, raw: '', topic: entry.topic };
    return applyEvent(existing, event as NormalizedEvent, policy).changed;
  }
  return importEntry(existing, email, { kind: entry.kind, occurredAt, actor, entryId, note: entry.note, source }, policy).changed;
}

async function* rows(path: string, format: ImportFormat): AsyncGenerator<{ row: Record<string, unknown>; line: number }> {
  if (format.layout === 'json') {
    const document = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
    const list = format.list?.(document);
    if (!Array.isArray(list)) throw new Error(`${basename(path)} is not a ${format.name} document (no list of entries found)`);
    let index = 0;
    for (const item of list) yield { row: (item ?? {}) as Record<string, unknown>, line: ++index };
    return;
  }
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY });
  if (format.layout === 'csv') {
    yield* csvRows(lines);
    return;
  }
  let line = 0;
  for await (const text of lines) {
    line++;
    if (text.trim() === '') continue;
    try {
      yield { row: JSON.parse(text) as Record<string, unknown>, line };
    } catch {
      yield { row: { status: 'not JSON' }, line };
    }
  }
}
