/** Postmark's own fixtures: a configured provider, authorized requests, records shaped like Postmark's docs. */
import { expect } from 'vitest';
import type { WebhookProvider } from '../../../lambdas/core/provider.js';
import { postmarkProvider } from '../../../lambdas/core/providers/postmark/index.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { postmarkAuthorization } from '../../../lib/demo/postmark.js';
import { createProvider, type Headers, request as rawRequest } from '../support/provider.js';

export const CREDENTIAL = 'ratchet-hook:s3cret-Pa55word';

export function postmark(
  credentials: readonly string[] = [CREDENTIAL],
  settings: Record<string, string | undefined> = {},
): WebhookProvider {
  return createProvider(postmarkProvider, credentials, { settings });
}

/** Authorized with CREDENTIAL unless other headers are given. */
export function request(
  body: string | Buffer | object,
  headers: Headers = { authorization: postmarkAuthorization(CREDENTIAL) },
  sourceIp?: string,
): WebhookRequest {
  return rawRequest(body, headers, sourceIp);
}

/** A Delivery record from Postmark's docs, with the recipient we want. */
export function delivery(recipient = 'john@example.com'): Record<string, unknown> {
  return {
    RecordType: 'Delivery',
    ServerID: 23,
    MessageStream: 'outbound',
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    Recipient: recipient,
    Tag: 'welcome-email',
    DeliveredAt: '2019-11-05T16:33:54.9070259Z',
    Details: 'Test delivery webhook details',
    Metadata: { a_key: 'a_value' },
  };
}

/** A Bounce record shaped like Postmark's docs example. */
export function bounce(
  type: string,
  inactive: boolean,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    RecordType: 'Bounce',
    // biome-ignore lint/correctness/noPrecisionLoss: Postmark's documented example ID, an int64 past 2^53; JSON.parse rounds it the same way.
    ID: 4323372036854775807,
    Type: type,
    TypeCode: 1,
    Name: type,
    Tag: 'Test',
    MessageID: '883953f4-6105-42a2-a16a-77a8eac79483',
    ServerID: 23,
    MessageStream: 'outbound',
    Description: 'The server was unable to deliver your message (ex: unknown user, mailbox not found).',
    Details: 'Test bounce details',
    Email: 'john@example.com',
    From: 'sender@example.com',
    BouncedAt: '2019-11-05T16:33:54.9070259Z',
    DumpAvailable: true,
    Inactive: inactive,
    CanActivate: true,
    Subject: 'Test subject',
    Metadata: {},
    ...overrides,
  };
}

export function subscriptionChange(
  suppress: boolean,
  reason: string | null,
  origin = 'Recipient',
): Record<string, unknown> {
  return {
    RecordType: 'SubscriptionChange',
    MessageID: suppress ? '883953f4-6105-42a2-a16a-77a8eac79483' : null,
    ServerID: 123456,
    MessageStream: 'outbound',
    ChangedAt: '2020-02-01T10:53:34.416071Z',
    Recipient: 'bounced-address@wildbit.com',
    Origin: origin,
    SuppressSending: suppress,
    SuppressionReason: reason,
    Tag: suppress ? 'my-tag' : null,
    Metadata: {},
  };
}

export async function receiveOne(record: Record<string, unknown> | string) {
  const { events } = await postmark().receive(request(record));
  expect(events).toHaveLength(1);
  return events[0]!;
}
