/**
 * The inbox table's stream records, read and (locally) written by the inbox adapter alone, so nothing
 * else names a row's attributes. The table streams NEW_IMAGE: a new row's image is its key, expiry,
 * version and packed body, which `readInboxRow` decodes as it decodes a row read from the table.
 *
 * A row is written once (a conditional put), so every INSERT of an event row is one first admission;
 * a MODIFY is a put over an expired row DynamoDB had not yet deleted (the condition treats it as
 * absent): a first admission too. REMOVEs (TTL deletions) and the table's other items (Mailgun token
 * claims, control-ledger rows: no body) are none.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { PreparedRow } from '../core/pipeline/ports.js';
import type { AdmittedRecord } from '../core/reputation/stream-count.js';
import { type StoredRow, storedRowAttributes } from './dynamodb-inbox.js';
import type { StoredEvent } from './inbox-codec.js';
import { INBOX_VERSION_ATTRIBUTE, readInboxRow } from './inbox-schema.js';
import { INBOX_TABLE } from './tables.js';

/** A stream image as Lambda hands it over: binary values base64 in JSON, or bytes from an SDK. */
export type StreamImage = Record<string, { S?: string; N?: string; B?: string | Uint8Array }>;

/** The events of a stream record's new image, when it is a first admission of an event row; else undefined. */
export function admittedEvents(
  eventName: string | undefined,
  image: StreamImage | undefined,
): StoredEvent[] | undefined {
  if ((eventName !== 'INSERT' && eventName !== 'MODIFY') || !image) return undefined;
  const body = image['body']?.B;
  if (body === undefined) return undefined;
  const item: Record<string, unknown> = {
    [INBOX_TABLE.partitionKey]: image[INBOX_TABLE.partitionKey]?.S,
    [INBOX_TABLE.ttlAttribute]: Number(image[INBOX_TABLE.ttlAttribute]?.N),
    [INBOX_VERSION_ATTRIBUTE]: Number(image[INBOX_VERSION_ATTRIBUTE]?.N),
    body: typeof body === 'string' ? new Uint8Array(Buffer.from(body, 'base64')) : body,
    ...(image['status']?.S !== undefined ? { status: image['status'].S } : {}),
  };
  return readInboxRow(item)?.events;
}

/** The image DynamoDB streams for a row the inbox just stored (the local runtime's stand-in for the stream). */
export function streamImageOf(row: PreparedRow): Record<string, AttributeValue> {
  return storedRowAttributes((row as PreparedRow & { item: StoredRow }).item);
}

/** A DynamoDB stream record, as much of it as counting reads (Lambda's DynamoDBRecord, or the local feed's). */
export interface InboxStreamRecord {
  eventName?: string;
  dynamodb?: { SequenceNumber?: string; ApproximateCreationDateTime?: number; NewImage?: StreamImage };
}

/** The record as a first admission to count (its sequence number, when it was written, its events), else undefined. */
export function admittedRecordOf(record: InboxStreamRecord): AdmittedRecord | undefined {
  const events = admittedEvents(record.eventName, record.dynamodb?.NewImage);
  const sequence = record.dynamodb?.SequenceNumber;
  const at = record.dynamodb?.ApproximateCreationDateTime;
  if (!events || sequence === undefined || typeof at !== 'number') return undefined;
  return { sequence, atMs: at * 1000, events };
}
