/**
 * `ratchet suppressions export|import`: take every record out (parallel scan segments, streamed, in
 * export format 2: export-format.ts), and bring another system's suppression list in as evidence, or
 * a Ratchet export back whole (import.ts).
 */
import { createWriteStream } from 'node:fs';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { type Command, Option } from 'commander';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { NO_TOPIC_ALIASES, resolveTopic, storedTopicNames, type TopicAliases } from '../../../lambdas/core/topics.js';
import type { Context } from '../context.js';
import { EXPORT_CSV_COLUMNS, exportCsvRow, exportJsonLine } from '../export-format.js';
import type { Run } from '../program.js';
import { progressBar } from '../progress.js';
import { addImportCommand } from './import.js';
import { STATUSES } from './suppressions.js';

const EXPORT_SEGMENTS = 4;

export function addTransferCommands(command: Command, ctx: Context, run: Run): void {
  command
    .command('export')
    .description(
      'every record, streamed with parallel scan segments, as JSON lines (epoch ms) or CSV (ISO 8601); import reads either back',
    )
    .addOption(new Option('--format <format>', 'output format').choices(['jsonl', 'csv']).makeOptionMandatory())
    .addOption(new Option('--status <status>', 'only records with this status').choices(STATUSES))
    .option('--topic <topic>', 'only records with evidence for this topic')
    .option('--out <file>', 'write here instead of stdout')
    .action(
      run(
        async (options: {
          format: 'jsonl' | 'csv';
          status?: (typeof STATUSES)[number];
          topic?: string;
          out?: string;
        }) => {
          const file = options.out ? createWriteStream(options.out) : undefined;
          const write = async (line: string) => {
            if (!file) return ctx.io.out(line);
            if (!file.write(`${line}\n`)) await new Promise<void>((r) => file.once('drain', () => r()));
          };
          const progress = progressBar(ctx.io, 'export', ctx.io.progressTty ? await approximateCount(ctx) : undefined);
          let count = 0;
          let scanned = 0;
          const aliases = ctx.policy().topicAliases ?? NO_TOPIC_ALIASES;
          if (options.format === 'csv') await write(EXPORT_CSV_COLUMNS.join(','));
          await ctx.suppressions().scan({ status: options.status, segments: EXPORT_SEGMENTS }, async (records) => {
            for (const record of records) {
              if (options.topic && !hasTopic(record, options.topic, aliases)) continue;
              await write(options.format === 'jsonl' ? exportJsonLine(record) : exportCsvRow(record));
              count++;
            }
            scanned += records.length;
            // The estimate may lag the table: never let the count pass the total.
            progress.total(scanned);
            progress.tick(records.length);
          });
          progress.done();
          if (file)
            await new Promise<void>((resolve, reject) =>
              file.end((error?: Error | null) => (error ? reject(error) : resolve())),
            );
          ctx.io.err(`exported ${count} records`);
          return 0;
        },
      ),
    );
  addImportCommand(command, ctx, run);
}

/**
 * Evidence for a topic: the topic's own entry in `topics`, or a manual change of it in the audit list,
 * under any name TOPIC_ALIASES stores it under (a canonical name asked for is its alias's question, and an
 * entry stored before the alias was set counts), as the client reads topics.
 */
export function hasTopic(record: SuppressionRecord, topic: string, aliases: TopicAliases = NO_TOPIC_ALIASES): boolean {
  const names = storedTopicNames(resolveTopic(topic, aliases), aliases);
  const topics = record.topics ?? {};
  return names.some(
    (name) => Object.hasOwn(topics, name) || (record.audit ?? []).some((entry) => entry.topic === name),
  );
}

/** DynamoDB's own item count (refreshed about every six hours on AWS): the bar's total, an estimate. */
async function approximateCount(ctx: Context): Promise<number | undefined> {
  try {
    const { Table } = await ctx.doc.send(new DescribeTableCommand({ TableName: ctx.target.suppressionTable }));
    return Table?.ItemCount || undefined;
  } catch {
    return undefined;
  }
}
