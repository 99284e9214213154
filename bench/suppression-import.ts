/**
 * §7 Suppression import: `ratchet suppressions import` of a 100,000-row Mailgun bounces CSV (one
 * address per row) into an empty suppression table, against the bare floor on the same emulator: the
 * same 100,000 addresses written with one conditional PutItem each (`attribute_not_exists(email)`), at
 * the importer's own concurrency. The import does more per row (parse, normalize, pure ratchet, then
 * the same create-only put; a read and a version-guarded put only where a record exists): the target
 * is at least 0.5× the bare rate.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ratchetCommand } from '../lib/cli/ratchet.js';
import { SUPPRESSION_TABLE } from '../lib/definitions.js';
import { ensureTables } from '../lib/local/bootstrap.js';
import { runClosedLoop } from './lib/load.js';
import { withBenchStack } from './lib/local-stack.js';
import { fmt, fmtRatio } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 100_000);
/** The importer's in-flight limit (lib/cli/commands/transfer.ts). */
const CONCURRENCY = 16;
const TARGET_RATIO = 0.5;

export async function benchSuppressionImport(options: { log?: (line: string) => void } = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  return withBenchStack(async (stack) => {
    const endpoint = stack.config.dynamoEndpoint!;
    const client = new DynamoDBClient({
      region: stack.config.region,
      endpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await ensureTables(client, { inbox: 'bench-import-inbox', suppression: 'bench-import' });
    await ensureTables(client, { inbox: 'bench-bare-inbox', suppression: 'bench-bare' });
    client.destroy();

    const file = join(stack.dataDir, 'mailgun-bounces.csv');
    const addresses = Array.from({ length: ROWS }, (_, i) => `import-${i}@bench.example.com`);
    const created = 'Mon, 06 May 2024 18:11:58 UTC';
    writeFileSync(
      file,
      ['address,code,error,created_at', ...addresses.map((a) => `${a},550,No such mailbox,"${created}"`)].join('\n'),
    );
    log(`  ${ROWS} rows written (untimed); bare conditional writes…`);

    const bare = await runClosedLoop(addresses, CONCURRENCY, async (email) => {
      await stack.clients.doc.send(
        new PutCommand({
          TableName: 'bench-bare',
          Item: { email, status: 'suppressed' },
          ConditionExpression: 'attribute_not_exists(#e)',
          ExpressionAttributeNames: { '#e': SUPPRESSION_TABLE.partitionKey },
        }),
      );
      return true;
    });
    if (bare.failures > 0) throw new Error(`bare writes failed: ${bare.failureSamples.join('; ')}`);
    log(`  bare: ${fmt(ROWS / (bare.wallMs / 1000))} rows/s; import…`);

    const lines: string[] = [];
    const env = {
      DYNAMODB_ENDPOINT: endpoint,
      SUPPRESSION_TABLE: 'bench-import',
      INBOX_TABLE: 'bench-import-inbox',
      AWS_REGION: stack.config.region,
    };
    const io = { out: (l: string) => lines.push(l), err: () => undefined, progressTty: false };
    const cpuStart = process.cpuUsage();
    const t0 = performance.now();
    const code = await ratchetCommand(
      ['suppressions', 'import', file, '--format', 'mailgun-bounces', '--json'],
      env,
      io,
    );
    const importMs = performance.now() - t0;
    const cpu = process.cpuUsage(cpuStart);
    const summary = JSON.parse(lines.at(-1) ?? '{}') as { added?: number };
    if (code !== 0 || summary.added !== ROWS) throw new Error(`import: exit ${code}, ${lines.join(' ')}`);

    const importRate = ROWS / (importMs / 1000);
    const bareRate = ROWS / (bare.wallMs / 1000);
    const ratio = importRate / bareRate;
    return {
      id: 'import',
      title: '8. Suppression import (local stack)',
      method: [
        `A ${ROWS.toLocaleString('en-US')}-row Mailgun bounces CSV (\`address,code,error,created_at\`), one new address per row, imported by \`ratchetCommand\` in-process into an empty table of the bench stack's dynalite: stream → CSV parse → normalize → pure ratchet (\`importEntry\`) → one create-only PutItem (\`attribute_not_exists(email)\`; only where a record already exists: consistent GetItem → merge → version-guarded PutItem), ${CONCURRENCY} rows in flight.`,
        `Floor, same emulator and process, run first: one \`PutItem\` per address with \`attribute_not_exists(email)\`, ${CONCURRENCY} in flight (runClosedLoop), into another empty table.`,
        'One run each (a full run takes minutes); the ratio is import rows/s ÷ bare rows/s.',
      ],
      tables: [
        {
          columns: ['path', 'rows', 'in flight', 's', 'rows/s', 'CPU ms/row'],
          rows: [
            [
              'bare conditional PutItem',
              String(ROWS),
              String(CONCURRENCY),
              fmt(bare.wallMs / 1000),
              fmt(bareRate),
              fmt(bare.cpuMs / ROWS),
            ],
            [
              'suppressions import',
              String(ROWS),
              String(CONCURRENCY),
              fmt(importMs / 1000),
              fmt(importRate),
              fmt((cpu.user + cpu.system) / 1000 / ROWS),
            ],
          ],
        },
      ],
      verdicts: [
        {
          subject: 'import rows/s ÷ bare conditional writes/s',
          target: `≥ ${TARGET_RATIO}×`,
          measured: fmtRatio(ratio),
          meets: ratio >= TARGET_RATIO,
        },
      ],
      notes: [
        "Every address is new here, so each row is one create-only PutItem, like the floor: the gap is the CLI's own work (stream, CSV parse, normalize, ratchet, progress). A re-run (every address present) pays a refused create plus a read per row.",
      ],
      wallMs: performance.now() - started,
    };
  });
}
