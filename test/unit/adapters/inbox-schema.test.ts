/**
 * The inbox table's versioned reader: a version-1 row (status attribute, codec dictionary 1), frozen as
 * written in test/fixtures/inbox-schema, and today's version-2 row both read back whole; the table's
 * other items and rows this code cannot read are told apart.
 */
import { readFileSync } from 'node:fs';

import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../../lambdas/adapters/dynamodb-inbox.js';
import { encodePayload, type StoredEvent } from '../../../lambdas/adapters/inbox-codec.js';
import {
  CURRENT_INBOX_VERSION,
  INBOX_ROW_STEPS,
  INBOX_VERSION_ATTRIBUTE,
  readInboxRow,
} from '../../../lambdas/adapters/inbox-schema.js';

const events: StoredEvent[] = [
  {
    provider: 'ses',
    eventId: 'm1:a@example.com',
    recipient: 'a@example.com',
    kind: 'hard_bounce',
    occurredAt: 1_764_000_000_000,
    detail: { bounceType: 'Permanent' },
  },
];
const RAW = '{"Type":"Notification","Message":"{}"}';

/** A version-1 row as DynamoInbox has written it since the codec (attributes as the document client reads them). */
const v1Row = {
  pk: 'ses#m1:a@example.com',
  status: 'queued',
  expiresAt: 1_766_592_000,
  body: new Uint8Array(encodePayload(events, RAW, 1)),
  v: 1,
};

const frozen = JSON.parse(
  readFileSync(new URL('../../fixtures/inbox-schema/v1-ses-bounce.json', import.meta.url), 'utf8'),
) as { item: Record<string, unknown> & { body: string }; events: StoredEvent[]; raw: string };

describe('readInboxRow', () => {
  it('version 2 is today’s, one step after version 1', () => {
    expect(CURRENT_INBOX_VERSION).toBe(2);
    expect(INBOX_ROW_STEPS.map((s) => s.from)).toEqual([1]);
    expect(INBOX_VERSION_ATTRIBUTE).toBe('v');
  });

  it('reads the frozen version-1 row (as written before version 2) whole, byte for byte', () => {
    const item = { ...frozen.item, body: new Uint8Array(Buffer.from(frozen.item.body, 'base64')) };
    expect(readInboxRow(item)).toEqual({
      pk: frozen.item.pk,
      status: 'queued',
      expiresAt: frozen.item.expiresAt,
      events: frozen.events,
      raw: frozen.raw,
    });
  });

  it('reads a version-1 row whole: key, status, expiry, events and the raw payload byte for byte', () => {
    expect(readInboxRow(v1Row)).toEqual({
      pk: v1Row.pk,
      status: 'queued',
      expiresAt: v1Row.expiresAt,
      events,
      raw: RAW,
    });
  });

  it('reads back exactly what the adapter writes today (no status attribute any more)', () => {
    const inbox = new DynamoInbox({} as DynamoDBDocumentClient, 'inbox', { ttlSeconds: 60 });
    const { item } = inbox.prepare([{ ...events[0]!, raw: RAW }], 1_764_000_000_000) as unknown as {
      item: Record<string, unknown>;
    };
    expect(item[INBOX_VERSION_ATTRIBUTE]).toBe(CURRENT_INBOX_VERSION);
    expect(Object.keys(item).sort()).toEqual(['body', 'expiresAt', 'pk', 'v']);
    expect(readInboxRow(item)).toEqual({
      pk: 'ses#m1:a@example.com',
      status: 'queued',
      expiresAt: 1_764_000_060,
      events,
      raw: RAW,
    });
  });

  it('is undefined for the table’s other items (Mailgun token claims, ledger rows) and for bodies that are not bytes', () => {
    expect(readInboxRow({ pk: 'mailgun-token#abc', expiresAt: 1 })).toBeUndefined();
    expect(readInboxRow({ pk: 'control#x', doneAt: 1 })).toBeUndefined();
    expect(readInboxRow({ ...v1Row, body: 'not bytes' })).toBeUndefined();
  });

  it('refuses a row whose version it has no dictionary for (newer code, or no version at all)', () => {
    expect(() => readInboxRow({ ...v1Row, v: 3 })).toThrow('unknown inbox codec version 3');
    const { v: _v, ...unversioned } = v1Row;
    expect(() => readInboxRow(unversioned)).toThrow('unknown inbox codec version NaN');
  });
});
