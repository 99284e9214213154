/**
 * The backfill's marks on the suppression table (the sync side of its adapter, dynamodb-suppression-sync.ts;
 * suppression-sync-fields.ts owns the attribute names). Every mark bumps the item's version: a record
 * writer that read the item before it puts the whole item, sync fields as it read them, and would
 * otherwise erase the mark after the backfill counted it and moved on.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { BackfillMark } from '../core/sync/backfill.js';
import { DEAD_DUE_MS } from '../core/sync/ledger.js';
import { pendingKey } from '../core/sync/shard.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { SYNC_ATTRIBUTE as A } from './suppression-sync-fields.js';
import { SUPPRESSION_TABLE } from './tables.js';

const NO_LIVE_MARKER = 'attribute_exists(#email) AND (attribute_not_exists(#pending) OR #due = :parked)';
const LIVE_MARKER = 'attribute_exists(#pending) AND #due <> :parked';
const VERSION = '#version = if_not_exists(#version, :zero) + :one';
const CHANGE = '#change = if_not_exists(#change, :zero) + :one';

/**
 * `change`: the outbox marker due at `dueMs` on an item that has none, or only a parked one (never due,
 * so no sweep would send it); false when it has a live one (its sweep or message is coming) or is gone.
 * The worker parks it again once every provider has caught up, if the dead change or the refusal is
 * still there.
 *
 * `scopes`: the same, plus a new sync change. Every provider has caught up with the last one, so without
 * a new one the sweeper would see nobody lagging and send nothing the plan still has to push; and with
 * it every provider lags, so one walk's mark serves the others' scopes too. On an item that has a live
 * marker (another walk's `change` mark in the same sweep, or a change of its own) only the change is
 * counted: the marker already brings a message to everyone lagging, and a worker that read the item
 * before finds the version moved and plans again.
 */
export async function markForBackfill(
  client: DynamoDBDocumentClient,
  tableName: string,
  email: string,
  dueMs: number,
  why: BackfillMark,
): Promise<boolean> {
  const mark = (update: string, condition: string) => write(client, tableName, email, dueMs, update, condition);
  const marker = `SET #pending = :key, #due = :due, ${VERSION}`;
  if (why === 'change') return mark(marker, NO_LIVE_MARKER);
  // The marker can come or go between the two writes (a worker clearing it): one more round settles it.
  for (let round = 0; round < 2; round++) {
    if (await mark(`${marker}, ${CHANGE}`, NO_LIVE_MARKER)) return true;
    if (await mark(`SET ${VERSION}, ${CHANGE}`, LIVE_MARKER)) return true;
  }
  return false;
}

async function write(
  client: DynamoDBDocumentClient,
  tableName: string,
  email: string,
  dueMs: number,
  update: string,
  condition: string,
): Promise<boolean> {
  const uses = (token: string) => update.includes(token) || condition.includes(token);
  const names: Record<string, string> = {
    '#pending': A.pending,
    '#due': A.due,
    '#email': SUPPRESSION_TABLE.partitionKey,
    '#version': 'version',
    '#change': A.change,
  };
  const values: Record<string, unknown> = {
    ':key': pendingKey(email),
    ':due': dueMs,
    ':parked': DEAD_DUE_MS,
    ':zero': 0,
    ':one': 1,
  };
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { [SUPPRESSION_TABLE.partitionKey]: email },
        UpdateExpression: update,
        ConditionExpression: condition,
        // DynamoDB refuses a name or a value the expressions do not use.
        ExpressionAttributeNames: Object.fromEntries(Object.entries(names).filter(([k]) => uses(k))),
        ExpressionAttributeValues: Object.fromEntries(Object.entries(values).filter(([k]) => uses(k))),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionalCheckFailure(error)) return false;
    throw new TransientError('sync backfill mark failed', { cause: error });
  }
}
