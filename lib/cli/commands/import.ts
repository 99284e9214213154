/**
 * `ratchet suppressions import <file> --format <f>`: another system's suppression list, added as
 * evidence. An import only ever adds evidence, so it can be re-run safely (a second run reports
 * everything as already present) and never lifts a suppression. The file's header must be the one its
 * provider documents (import-file.ts), or nothing is written. `--dry-run` goes through the very same
 * path with a store that skips the write (dry-run-store.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { type Command, Option } from 'commander';
import { normalizeRecipient } from '../../../lambdas/core/event.js';
import { IMPORT_PROVIDER, policyFromSettings } from '../../../lambdas/core/suppression/index.js';
import type { Context } from '../context.js';
import { DryRunStore, type ImportStore } from '../dry-run-store.js';
import { importRows } from '../import-file.js';
import {
  type DateSource,
  IMPORT_FORMAT_NAMES,
  IMPORT_FORMATS,
  type ImportFormat,
  type ParsedEntry,
  parseSourceDate,
} from '../import-formats.js';
import type { Run } from '../program.js';
import { progressBar } from '../progress.js';

const IMPORT_CONCURRENCY = 16;
const FIRST_ROWS = 5;
const NAMED_INVALID = 20;

export interface ImportSummary {
  added: number;
  alreadyPresent: number;
  invalid: number;
  /** What was (or would be) added, per evidence kind and scope (`global`, or `topic <name>`). */
  addedBy: Array<{ kind: string; scope: string; count: number }>;
}

export interface ImportedRow {
  line: number;
  email: string;
  kind: string;
  scope: string;
  occurredAt: number;
}

export function addImportCommand(command: Command, ctx: Context, run: Run): void {
  command
    .command('import')
    .description('add another suppression list as evidence (actor import:<file name>); never lifts a suppression')
    .argument('<file>', 'the file to read')
    .addOption(
      new Option('--format <format>', 'the file layout (docs/import-formats.md)')
        .choices(IMPORT_FORMAT_NAMES)
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--dates <source>',
        "entries without a date of their own: refuse them (column), or date them by the file's modification time",
      )
        .choices(['column', 'file-mtime'])
        .default('column'),
    )
    .option('--dry-run', 'report what would be added per kind and scope, and the first rows; write nothing')
    .option('--json', 'the summary as JSON')
    .action(
      run(async (path: string, options: { format: string; dates: DateSource; dryRun?: boolean; json?: boolean }) => {
        const format = IMPORT_FORMATS.find((f) => f.name === options.format)!;
        const dryRun = options.dryRun === true;
        const real = ctx.suppressions();
        const store: ImportStore = dryRun
          ? new DryRunStore((email) => real.get(email), policyFromSettings(ctx.env))
          : real;
        const firstRows: ImportedRow[] = [];
        const summary = await importFile(ctx, store, path, format, options.dates, (row) => {
          if (firstRows.length < FIRST_ROWS) firstRows.push(row);
        });
        const { added, alreadyPresent, invalid } = summary;
        if (options.json) {
          ctx.io.out(JSON.stringify({ dryRun, ...summary, ...(dryRun ? { firstRows } : {}) }));
          return 0;
        }
        ctx.io.out(`${dryRun ? 'would add' : 'added'} ${added}, already present ${alreadyPresent}, invalid ${invalid}`);
        if (dryRun) {
          for (const { kind, scope, count } of summary.addedBy) ctx.io.out(`  ${kind} ${scope}: ${count}`);
          if (firstRows.length > 0) ctx.io.out(`first ${firstRows.length} rows:`);
          for (const r of firstRows)
            ctx.io.out(
              `  ${basename(path)}:${r.line} ${r.email} ${r.kind} ${r.scope} ${new Date(r.occurredAt).toISOString()}`,
            );
        }
        return 0;
      }),
    );
}

/** One code path for a real run and a dry run: only the store differs. */
export async function importFile(
  ctx: Context,
  store: ImportStore,
  path: string,
  format: ImportFormat,
  dates: DateSource,
  onRow: (row: ImportedRow) => void = () => undefined,
): Promise<ImportSummary> {
  const file = basename(path);
  const actor = `import:${file}`;
  const fileTime = Math.round(statSync(path).mtimeMs);
  const counts = { added: 0, alreadyPresent: 0, invalid: 0 };
  const addedBy = new Map<string, number>();
  const progress = progressBar(ctx.io, 'import', ctx.io.progressTty ? await countRows(path, format) : undefined);
  const inFlight = new Set<Promise<void>>();
  const invalid = (line: number, why: string) => {
    counts.invalid++;
    if (counts.invalid <= NAMED_INVALID) progress.log(`${file}:${line}: invalid: ${why}`);
  };

  const handle = async (entry: ParsedEntry, line: number) => {
    let email: string;
    try {
      email = normalizeRecipient(entry.email);
    } catch {
      return invalid(line, 'not an email address');
    }
    if (entry.date === undefined && dates !== 'file-mtime')
      return invalid(line, `no date in ${format.dateColumn} (--dates file-mtime dates it by the file)`);
    const occurredAt = entry.date === undefined ? fileTime : parseSourceDate(entry.date);
    if (occurredAt === undefined) return invalid(line, `unreadable date ${String(entry.date)}`);
    const entryId = createHash('sha256')
      .update([format.name, email, entry.kind, entry.topic ?? '', String(entry.date ?? '')].join('\n'))
      .digest('hex')
      .slice(0, 24);
    const scope = entry.topic ? `topic ${entry.topic}` : 'global';
    onRow({ line, email, kind: entry.kind, scope, occurredAt });
    // Topic-scoped: an unsubscribe event with its topic, through the same path as a provider's.
    const { changed } = entry.topic
      ? await store.apply({
          provider: IMPORT_PROVIDER,
          eventId: entryId,
          recipient: email,
          kind: 'unsubscribe',
          occurredAt,
          detail: { providerEventType: format.name },
          topic: entry.topic,
        })
      : await store.importEntry(email, {
          kind: entry.kind,
          occurredAt,
          actor,
          entryId,
          note: entry.note,
          source: format.name,
        });
    if (changed) {
      counts.added++;
      addedBy.set(`${entry.kind}\n${scope}`, (addedBy.get(`${entry.kind}\n${scope}`) ?? 0) + 1);
    } else counts.alreadyPresent++;
  };

  let failure: { error: unknown } | undefined;
  const submit = async (entry: ParsedEntry, line: number) => {
    const task: Promise<void> = handle(entry, line)
      .catch((error: unknown) => {
        failure ??= { error };
      })
      .finally(() => inFlight.delete(task));
    inFlight.add(task);
    if (inFlight.size >= IMPORT_CONCURRENCY) await Promise.race(inFlight);
  };

  try {
    for await (const read of importRows(path, format, dates)) {
      if (failure) break;
      progress.tick();
      const mapped = 'invalid' in read ? read : format.map(read.row);
      if (!Array.isArray(mapped)) {
        invalid(read.line, mapped.invalid);
        continue;
      }
      for (const entry of mapped) await submit(entry, read.line);
    }
  } finally {
    await Promise.allSettled(inFlight);
    progress.done();
  }
  if (failure) throw failure.error;
  const by = [...addedBy].map(([key, count]) => {
    const [kind, scope] = key.split('\n') as [string, string];
    return { kind, scope, count };
  });
  return { ...counts, addedBy: by.sort((a, b) => a.kind.localeCompare(b.kind) || a.scope.localeCompare(b.scope)) };
}

/** Rows in the file, for the progress bar's total: lines after the header (a quoted line break counts twice), or list entries. */
async function countRows(path: string, format: ImportFormat): Promise<number | undefined> {
  if (format.layout === 'json') return undefined;
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    for (const byte of chunk) if (byte === 10) lines++;
    last = chunk.at(-1) ?? last;
  }
  if (last !== 10) lines++;
  return Math.max(0, format.layout === 'csv' ? lines - 1 : lines);
}
