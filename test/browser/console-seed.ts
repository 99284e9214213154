/** The console browser test's reputation data: counters written through the reputation adapter's own writer. */

import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { HOUR_MS, hourStart } from '../../lambdas/core/reputation/index.js';
import { ensureReputationTable } from '../../lib/local/bootstrap.js';
import type { TestStack } from '../integration/harness.js';
import { seedTallies } from '../support/reputation-seed.js';

export const REPUTATION = 'console-test-reputation';

/** A week of hourly counts for two senders: news.example.com climbs through warn into breach on the last day. */
export async function seedReputation(stack: TestStack): Promise<void> {
  const raw = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: stack.config.dynamoEndpoint!,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  await ensureReputationTable(raw, REPUTATION);
  raw.destroy();
  const now = hourStart(Date.now());
  for (let h = 0; h < 168; h++) {
    const hourMs = now - h * HOUR_MS;
    const late = h < 24;
    await seedTallies(stack.clients.doc, REPUTATION, [
      {
        provider: 'ses',
        sender: 'news.example.com',
        hourMs,
        delivered: 200,
        hardBounced: late ? 12 : 1,
        softBounced: 0,
        complained: late ? 1 : 0,
      },
      {
        provider: 'sendgrid',
        sender: 'receipts.example.com',
        hourMs,
        delivered: 200,
        hardBounced: 1,
        softBounced: 1,
        complained: 0,
      },
    ]);
  }
}
