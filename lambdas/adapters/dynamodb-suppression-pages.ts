/**
 * The suppression table a page at a time, for the operator console's lists: a Scan that stops as soon
 * as it holds one page of matching records, or when its time is up, and hands back a cursor to go on
 * from. Part of the suppression adapter (it owns the table's key; filters are the caller's predicate
 * on the pure record). A page never holds more than one Scan response plus the page in memory.
 *
 * The cursor is the key of the last record examined, not DynamoDB's LastEvaluatedKey of the last
 * response: a page that fills mid-response must not skip the rest of it. DynamoDB (and dynalite) accept
 * any item's key as ExclusiveStartKey and go on in the Scan's order from there.
 *
 * Cost: a Scan reads (and bills) every item it examines, match or not; a selective filter on a large
 * table examines many items per page, which is why a page also stops at its deadline and says so.
 */
import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { SuppressionRecord } from '../core/suppression/index.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import { SUPPRESSION_TABLE } from './tables.js';

export interface SuppressionPageRequest {
  /** Records per page (the console shows 50). */
  pageSize: number;
  /** Where the previous page stopped (`next` of its answer); absent: the table's start. */
  cursor?: string;
  /** Which records count; every record when absent. */
  matches?: (record: SuppressionRecord) => boolean;
  /** Answer by this time (epoch ms) with what was found so far and a cursor: no Scan is sent that would likely end after it. */
  deadlineMs: number;
  now?: () => number;
}

export interface SuppressionPage {
  records: SuppressionRecord[];
  /** Where to go on from; absent when the Scan reached the table's end. */
  next?: string;
  /** Items examined for this page. */
  scanned: number;
  /** The deadline stopped the page before it filled: more matches may follow. */
  stoppedEarly: boolean;
}

/** Per Scan request: enough for an unfiltered page at once, growing for sparse filters (DynamoDB caps a response at 1 MB). */
const FIRST_LIMIT_FACTOR = 2;
const MAX_LIMIT = 1_000;

export async function readSuppressionPage(
  client: DynamoDBDocumentClient,
  tableName: string,
  request: SuppressionPageRequest,
): Promise<SuppressionPage> {
  const now = request.now ?? Date.now;
  const records: SuppressionRecord[] = [];
  let startKey = request.cursor === undefined ? undefined : decodeCursor(request.cursor);
  let limit = Math.min(MAX_LIMIT, request.pageSize * FIRST_LIMIT_FACTOR);
  let scanned = 0;
  for (;;) {
    let page: { Items?: Array<Record<string, unknown>>; LastEvaluatedKey?: Record<string, unknown> };
    const sentAt = now();
    try {
      page = await client.send(new ScanCommand({ TableName: tableName, Limit: limit, ExclusiveStartKey: startKey }));
    } catch (cause) {
      throw new TransientError('suppression scan failed', { cause });
    }
    for (const item of page.Items ?? []) {
      scanned++;
      const record = upgradeSuppressionRecord(item) as unknown as SuppressionRecord;
      if (request.matches && !request.matches(record)) continue;
      records.push(record);
      if (records.length === request.pageSize) {
        const last = item === page.Items?.at(-1) ? page.LastEvaluatedKey : keyOf(record);
        return { records, ...(last ? { next: encodeCursor(last) } : {}), scanned, stoppedEarly: false };
      }
    }
    startKey = page.LastEvaluatedKey;
    if (!startKey) return { records, scanned, stoppedEarly: false };
    // Stop before a read that would likely end past the deadline (the next one takes about as long, or longer: its limit grows).
    const took = now() - sentAt;
    if (now() + took >= request.deadlineMs)
      return { records, next: encodeCursor(startKey), scanned, stoppedEarly: true };
    limit = Math.min(MAX_LIMIT, limit * 2);
  }
}

function keyOf(record: SuppressionRecord): Record<string, unknown> {
  return { [SUPPRESSION_TABLE.partitionKey]: record.email };
}

/** Opaque to the caller: the table's key, base64url JSON. */
function encodeCursor(key: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** A cursor this file did not write is refused (the caller answers 400), never sent to DynamoDB as a key. */
export class BadCursorError extends Error {}

function decodeCursor(cursor: string): Record<string, unknown> {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw new BadCursorError('not a page cursor');
  }
  const email = (key as Record<string, unknown> | null)?.[SUPPRESSION_TABLE.partitionKey];
  if (typeof email !== 'string' || email === '' || Object.keys(key as object).length !== 1)
    throw new BadCursorError('not a page cursor');
  return { [SUPPRESSION_TABLE.partitionKey]: email };
}
