/**
 * §7 @ratchet-email/ratchet/client filterSendable over 10,000 addresses against bare BatchGetItem chunks on the same
 * emulator (dynalite, in this process). 3,000 of the addresses have records (global unsubscribes,
 * topic opt-outs, complaints); the rest have none, as on a real list. Both sides read 100 keys per
 * call with the same number of calls in flight (8); the baseline does only that (no normalization,
 * no projection, no answer), so the ratio is what the client's own work costs. Rounds alternate the
 * two sides; the verdict is the median of the per-round throughput ratios.
 */
import { BatchGetItemCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createSuppressionClient } from '../lambdas/client/index.js';
import type { NormalizedEvent } from '../lambdas/core/event.js';
import { applyEvent } from '../lambdas/core/suppression/index.js';
import { type BenchStack, withBenchStack } from './lib/local-stack.js';
import { fmt, fmtRatio, median, pairedRatio } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const ADDRESSES = 10_000;
const WITH_RECORDS = 3_000;
const ROUNDS = 7;
const CONCURRENCY = 8;
const TARGET = 0.8;

export async function benchClientFilter(options: { log?: (line: string) => void } = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  return withBenchStack(async (stack) => {
    const table = stack.config.suppressionTable;
    await seed(stack, table);
    const emails = Array.from({ length: ADDRESSES }, (_, i) => `reader${i}@bench.example.com`);
    const dynamo = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: stack.config.dynamoEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const client = createSuppressionClient({ client: dynamo, tableName: table, concurrency: CONCURRENCY });

    const filter = async () => (await client.filterSendable(emails, { topic: 'newsletter' })).sendable.length;
    const bare = () => bareBatchGet(dynamo, table, emails);
    await filter(); // warm-up both paths (JIT, emulator)
    await bare();
    const filterMs: number[] = [];
    const bareMs: number[] = [];
    let sendable = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const t0 = performance.now();
      sendable = await filter();
      filterMs.push(performance.now() - t0);
      const t1 = performance.now();
      await bare();
      bareMs.push(performance.now() - t1);
    }
    // Throughput ratio: filterSendable addresses/s over bare addresses/s = bare time / filter time.
    const ratio = pairedRatio(bareMs, filterMs);
    log(`  filterSendable ${fmt(median(filterMs))} ms, bare ${fmt(median(bareMs))} ms, ratio ${fmtRatio(ratio)}`);
    return {
      id: 'client-filter',
      title: '7. Client: filterSendable',
      method: [
        `${ADDRESSES.toLocaleString('en-US')} addresses, ${WITH_RECORDS.toLocaleString('en-US')} with records, topic \`newsletter\`; ${ROUNDS} alternating rounds after a warm-up of each.`,
        `Both sides: BatchGetItem, 100 keys per call, ${CONCURRENCY} calls in flight, eventually consistent, on the same in-process dynalite.`,
        'filterSendable also normalizes and de-duplicates the addresses, projects the answer attributes and one topic, and answers per address.',
      ],
      tables: [
        {
          columns: ['Path', 'Median ms', 'Addresses/s'],
          rows: [
            [
              'filterSendable (@ratchet-email/ratchet/client)',
              fmt(median(filterMs)),
              fmt(ADDRESSES / (median(filterMs) / 1000)),
            ],
            ['bare BatchGetItem chunks', fmt(median(bareMs)), fmt(ADDRESSES / (median(bareMs) / 1000))],
          ],
        },
      ],
      verdicts: [
        {
          subject: 'filterSendable / bare BatchGetItem throughput',
          target: `≥ ${TARGET}×`,
          measured: fmtRatio(ratio),
          meets: ratio >= TARGET,
        },
      ],
      notes: [
        `${sendable.toLocaleString('en-US')} of ${ADDRESSES.toLocaleString('en-US')} sendable in the last round.`,
      ],
      wallMs: performance.now() - started,
    };
  });
}

/** The baseline: only the reads, retrying UnprocessedKeys at once. */
async function bareBatchGet(dynamo: DynamoDBClient, table: string, emails: string[]): Promise<number> {
  let next = 0;
  let items = 0;
  const worker = async () => {
    while (next * 100 < emails.length) {
      const chunk = emails.slice(next * 100, ++next * 100);
      let keys: Array<Record<string, { S: string }>> | undefined = chunk.map((email) => ({ email: { S: email } }));
      while (keys && keys.length > 0) {
        const response = await dynamo.send(new BatchGetItemCommand({ RequestItems: { [table]: { Keys: keys } } }));
        items += response.Responses?.[table]?.length ?? 0;
        keys = response.UnprocessedKeys?.[table]?.Keys as typeof keys;
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return items;
}

async function seed(stack: BenchStack, table: string): Promise<void> {
  const records = Array.from({ length: WITH_RECORDS }, (_, i) => {
    const recipient = `reader${i * 3}@bench.example.com`;
    const kind = i % 3 === 0 ? 'complaint' : 'unsubscribe';
    const event: NormalizedEvent = {
      provider: 'generic',
      eventId: `b${i}`,
      recipient,
      kind,
      occurredAt: 1,
      detail: {},
      raw: '',
      ...(i % 3 === 1 ? { topic: 'newsletter' } : {}),
    };
    return applyEvent(undefined, event).record;
  });
  for (let i = 0; i < records.length; i += 25) {
    const batch = records
      .slice(i, i + 25)
      .map((Item) => ({ PutRequest: { Item: { ...Item, version: 1, updatedAt: 1 } } }));
    await stack.clients.doc.send(new BatchWriteCommand({ RequestItems: { [table]: batch } }));
  }
}
