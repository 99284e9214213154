/**
 * `ratchet suppressions import <file> --format <f>`: another system's suppression list, added as
 * evidence, or Ratchet's own export, merged record by record by its keys. An import only ever adds
 * evidence, so it can be re-run safely (a second run reports everything as already present) and never
 * lifts a suppression. What a row holds that the import cannot apply is counted as skipped and named. The file's header must be the one its
 * provider documents (import-file.ts), or nothing is written. `--dry-run` goes through the very same
 * path with a store that skips the write (dry-run-store.ts).
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { basename } from 'node:path';
import { type Command, Option } from 'commander';
import { normalizeRecipient } from '../../../lambdas/core/event.js';
import { IMPORT_PROVIDER, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
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
  type RowResult,
  type RowSkip,
} from '../import-formats.js';
import { LIFT_SKIP } from '../import-ratchet.js';
import type { Run } from '../program.js';
import { progressBar } from '../progress.js';

const IMPORT_CONCURRENCY = 16;
const FIRST_ROWS = 5;
const NAMED_INVALID = 20;

export interface ImportSummary {
  added: number;
  alreadyPresent: number;
  invalid: number;
  /**
   * What was (or would be) added, per evidence kind and scope (`global`, or `topic <name>`); a record
   * from Ratchet's own export counts as kind `record`, scope its exported status.
   */
  addedBy: Array<{ kind: string; scope: string; count: number }>;
  /** What the file holds that the import did not apply. */
  skipped: number;
  skippedBy: Array<{ what: string; why: string; count: number }>;
}

export interface ImportedRow {
  line: number;
  email: string;
  kind: string;
  scope: string;
  /** A record's latest time (its last event, reactivation, topic change or manual action); absent if it has none. */
  occurredAt?: number;
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
        const store: ImportStore = dryRun ? new DryRunStore((email) => real.get(email), ctx.policy()) : real;
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
        for (const { what, why, count } of summary.skippedBy) ctx.io.out(`skipped ${count}: ${what} (${why})`);
        if (dryRun) {
          for (const { kind, scope, count } of summary.addedBy) ctx.io.out(`  ${kind} ${scope}: ${count}`);
          if (firstRows.length > 0) ctx.io.out(`first ${firstRows.length} rows:`);
          for (const r of firstRows)
            ctx.io.out(
              `  ${basename(path)}:${r.line} ${r.email} ${r.kind} ${r.scope} ${r.occurredAt === undefined ? '-' : new Date(r.occurredAt).toISOString()}`,
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
  const counts = { added: 0, alreadyPresent: 0, invalid: 0, skipped: 0 };
  const addedBy = new Map<string, number>();
  const skippedBy = new Map<string, number>();
  const progress = progressBar(ctx.io, 'import', ctx.io.progressTty ? await countRows(path, format) : undefined);
  const inFlight = new Set<Promise<void>>();
  const invalid = (line: number, why: string) => {
    counts.invalid++;
    if (counts.invalid <= NAMED_INVALID) progress.log(`${file}:${line}: invalid: ${why}`);
  };
  const skip = (line: number, { what, detail, why }: RowSkip) => {
    counts.skipped++;
    skippedBy.set(`${what}\n${why}`, (skippedBy.get(`${what}\n${why}`) ?? 0) + 1);
    if (counts.skipped <= NAMED_INVALID) progress.log(`${file}:${line}: skipped ${what} ${detail}`);
  };
  const count = (changed: boolean, kind: string, scope: string) => {
    if (!changed) {
      counts.alreadyPresent++;
      return;
    }
    counts.added++;
    addedBy.set(`${kind}\n${scope}`, (addedBy.get(`${kind}\n${scope}`) ?? 0) + 1);
  };

  const handleRecord = async (record: SuppressionRecord, line: number) => {
    onRow({ line, email: record.email, kind: 'record', scope: record.status, ...latestTime(record) });
    const { changed, skipped } = await store.importRecord(record);
    for (const s of skipped) skip(line, { what: s.what, detail: new Date(s.at).toISOString(), why: LIFT_SKIP });
    count(changed, 'record', record.status);
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
    count(changed, entry.kind, scope);
  };

  let failure: { error: unknown } | undefined;
  const submit = async (work: () => Promise<void>) => {
    const task: Promise<void> = work()
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
      const mapped: RowResult = 'invalid' in read ? read : format.map(read.row);
      if ('invalid' in mapped) {
        invalid(read.line, mapped.invalid);
        continue;
      }
      if ('record' in mapped) {
        await submit(() => handleRecord(mapped.record, read.line));
        continue;
      }
      const { entries, skipped = [] } = Array.isArray(mapped) ? { entries: mapped } : mapped;
      for (const s of skipped) skip(read.line, s);
      for (const entry of entries) await submit(() => handle(entry, read.line));
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
  const skips = [...skippedBy].map(([key, count]) => {
    const [what, why] = key.split('\n') as [string, string];
    return { what, why, count };
  });
  return {
    ...counts,
    addedBy: by.sort((a, b) => a.kind.localeCompare(b.kind) || a.scope.localeCompare(b.scope)),
    skippedBy: skips.sort((a, b) => a.what.localeCompare(b.what) || a.why.localeCompare(b.why)),
  };
}

/** The latest time a record holds, for the dry run's first rows. */
function latestTime(record: SuppressionRecord): { occurredAt?: number } {
  const times = [
    record.lastEventAt,
    record.reactivatedAt,
    ...Object.values(record.topics ?? {}).map((t) => t.changedAt),
    ...(record.audit ?? []).map((a) => a.at),
  ].filter((t): t is number => typeof t === 'number');
  return times.length > 0 ? { occurredAt: Math.max(...times) } : {};
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
