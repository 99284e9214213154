/** Reputation counting's quantities for the cost model (docs/reputation.md). */
import { itemSize, writeUnits } from '../lambdas/adapters/dynamodb-item-size.js';
import { counterKey, hourKey } from '../lambdas/adapters/reputation-keys.js';
import { REPUTATION_TABLE } from '../lambdas/adapters/tables.js';

/**
 * A reputation counter item by DynamoDB's size rules: the longest key shape (an SES sender of a
 * 30-character domain, a two-digit shard), four counts of up to 7 digits and the TTL.
 */
export const COUNTER_ITEM_BYTES = itemSize({
  [REPUTATION_TABLE.partitionKey]: {
    S: counterKey('ses', 'newsletter.example-company.com', REPUTATION_TABLE.counterShards - 1),
  },
  [REPUTATION_TABLE.sortKey]: { S: hourKey(Date.UTC(2026, 11, 3, 9)) },
  delivered: { N: '7200000' },
  hardBounced: { N: '288000' },
  softBounced: { N: '360000' },
  complained: { N: '7200' },
  [REPUTATION_TABLE.ttlAttribute]: { N: '1796000000' },
});

/**
 * The edge's one UpdateItem ADD per provider, sender and hour of each request (a SendGrid batch) or SES
 * feed batch (`sesBatches`: feed batches, or SES requests without the feed); the registry row is
 * refreshed once per process and sender an hour, which is nothing per million.
 */
export function counterWrites(sesBatches: number, sendgridRequests: number) {
  return {
    item: `reputation counter writes (one ADD per request or feed batch and sender; ${COUNTER_ITEM_BYTES} B items)`,
    writeUnits: (sesBatches + sendgridRequests) * writeUnits(COUNTER_ITEM_BYTES),
  };
}
