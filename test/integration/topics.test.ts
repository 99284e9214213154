/**
 * Topics end to end on the real local stack (signed provider requests → edge →
 * queue → consumer → suppression table) and answered by the client, with TOPIC_ALIASES set.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { isSuppressed as adapterIsSuppressed } from '../../lambdas/adapters/is-suppressed.js';
import { createSuppressionClient, type SuppressionClient } from '../../lambdas/client/index.js';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { parseTopicAliases } from '../../lambdas/core/topics.js';
import { findDemoSigner } from '../../lib/demo/index.js';
import type { DemoOptions } from '../../lib/demo/types.js';
import { ensureDemoCredentials } from '../../lib/local/demo-credentials.js';
import { startTestStack, type TestStack } from './harness.js';

const ALIASES = 'sendgrid:group:4242=newsletter,ses:ratchet-demo:weekly=newsletter';

describe('topics, end to end', () => {
  let stack: TestStack;
  let client: SuppressionClient;
  let dataDir: string;
  let clock = Date.now();

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ratchet-topics-'));
    stack = await startTestStack({ dataDir, env: { TOPIC_ALIASES: ALIASES } });
    client = createSuppressionClient({
      endpoint: stack.config.dynamoEndpoint,
      region: 'us-east-1',
      tableName: stack.config.suppressionTable,
      topicAliases: ALIASES,
    });
  });
  afterAll(() => stack?.stop());

  /** Signs with the demo signer (each call a second later in event time), posts, drains. */
  async function send(provider: string, kind: ActionableKind, email: string, options?: DemoOptions): Promise<void> {
    clock += 1000;
    const request = findDemoSigner(provider)!.sign(
      kind,
      email,
      ensureDemoCredentials(dataDir)[provider]!,
      clock,
      options,
    );
    const response = await stack.post(provider, request);
    expect(response).toMatchObject({ status: 200, body: { admitted: 1 } });
    await stack.drain();
  }

  it('a SendGrid group_unsubscribe leaves status active with the (aliased) topic unsubscribed; a later resubscribe restores it', async () => {
    const email = 'group@example.com';
    await send('sendgrid', 'unsubscribe', email, { topic: '4242' });
    const record = await stack.record(email);
    expect(record).toMatchObject({ status: 'active', transactionalStatus: 'active', reasons: [] });
    expect(record!.topics.newsletter).toMatchObject({ status: 'unsubscribed' });
    expect(Object.values(record!.topics.newsletter.evidence)).toMatchObject([
      {
        kind: 'unsubscribe',
        provider: 'sendgrid',
        scope: 'sendgrid:group:4242',
        providerEventType: 'group_unsubscribe',
      },
    ]);

    expect(await client.isSuppressed(email, { topic: 'newsletter' })).toBe(true);
    expect(await client.isSuppressed(email, { topic: 'sendgrid:group:4242' })).toBe(true); // the canonical name, aliased
    expect(await client.isSuppressed(email)).toBe(false);
    expect(await client.isSuppressed(email, { transactional: true })).toBe(false);
    expect(await client.isSuppressed(email, { topic: 'other' })).toBe(false);
    expect(
      await adapterIsSuppressed(email, {
        topic: 'newsletter',
        client: stack.clients.doc,
        tableName: stack.config.suppressionTable,
      }),
    ).toBe(true);

    await send('sendgrid', 'subscribe', email, { topic: '4242' });
    expect((await stack.record(email))!.topics.newsletter).toMatchObject({ status: 'subscribed' });
    expect(await client.isSuppressed(email, { topic: 'newsletter' })).toBe(false);

    // The same newsletter through SES (aliased to the same name) opts out again.
    await send('ses', 'unsubscribe', email, { topic: 'weekly' });
    expect(await client.filterSendable([email], { topic: 'newsletter' })).toEqual({
      sendable: [],
      suppressed: [{ email, reason: 'topic_unsubscribed' }],
    });
  });

  it('an unaliased scope keeps its canonical name (Postmark stream, Resend topic, a generic topic)', async () => {
    const email = 'streams@example.com';
    await send('postmark', 'unsubscribe', email, { topic: 'broadcast' });
    await send('standard', 'unsubscribe', email, { topic: '07d84122-7224-4881-9c31-1c048e204602' });
    await send('generic', 'unsubscribe', email, { topic: 'product-updates' });
    const record = await stack.record(email);
    expect(Object.keys(record!.topics).sort()).toEqual([
      'postmark:stream:broadcast',
      'product-updates',
      'resend:topic:07d84122-7224-4881-9c31-1c048e204602',
    ]);
    expect(record).toMatchObject({ status: 'active', transactionalStatus: 'active' });
  });

  it('a global unsubscribe suppresses status while transactionalStatus stays active', async () => {
    const email = 'global@example.com';
    await send('sendgrid', 'unsubscribe', email);
    expect(await stack.record(email)).toMatchObject({
      status: 'suppressed',
      transactionalStatus: 'active',
      reasons: ['unsubscribe'],
    });
    expect(await client.isSuppressed(email)).toBe(true);
    expect(await client.isSuppressed(email, { topic: 'newsletter' })).toBe(true);
    expect(await client.isSuppressed(email, { transactional: true })).toBe(false);
  });

  it('a complaint suppresses both', async () => {
    const email = 'complaint@example.com';
    await send('sendgrid', 'unsubscribe', email);
    await send('ses', 'complaint', email);
    expect(await stack.record(email)).toMatchObject({
      status: 'suppressed',
      transactionalStatus: 'suppressed',
      reason: 'complaint',
    });
    expect(await client.isSuppressed(email, { transactional: true })).toBe(true);
    expect(await client.filterSendable([email], { transactional: true })).toEqual({
      sendable: [],
      suppressed: [{ email, reason: 'complaint' }],
    });
  });

  it('manual topic opt-out and restore through the adapter (what the CLI calls) are audited and leave status alone', async () => {
    const store = new DynamoSuppressionStore(
      stack.clients.doc,
      stack.config.suppressionTable,
      policyFromSettings({ TOPIC_ALIASES: ALIASES }),
    );
    const email = 'manual@example.com';
    const out = await store.unsubscribeTopic(' Manual@Example.com', 'sendgrid:group:4242', {
      actor: 'ops',
      reason: 'asked by phone',
      at: clock + 1,
    });
    expect(out).toMatchObject({ changed: true, effect: 'topic_unsubscribed', becameSuppressed: false });
    expect(await client.isSuppressed(email, { topic: 'newsletter' })).toBe(true);
    const back = await store.resubscribeTopic(email, 'newsletter', {
      actor: 'ops',
      reason: 'asked again',
      at: clock + 2,
    });
    expect(back.effect).toBe('topic_subscribed');
    const record = await client.getRecord(email);
    expect(record).toMatchObject({
      status: 'active',
      transactionalStatus: 'active',
      topics: { newsletter: { status: 'subscribed', changedAt: clock + 2 } },
    });
    expect(record!.audit.map((a) => [a.action, a.topic, a.actor])).toEqual([
      ['suppress', 'newsletter', 'ops'],
      ['reactivate', 'newsletter', 'ops'],
    ]);
  });

  it('an opt-out stored before its alias was set is the alias’s to the client: suppressed for newsletter until a later opt-in', async () => {
    // Written while TOPIC_ALIASES was unset: stored under the canonical name.
    const unaliased = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable);
    const email = 'left-before-the-alias@example.com';
    await unaliased.unsubscribeTopic(email, 'sendgrid:group:4242', { actor: 'ops', reason: 'asked', at: clock + 10 });
    expect(Object.keys((await client.getRecord(email))!.topics)).toEqual(['sendgrid:group:4242']);

    expect(await client.isSuppressed(email, { topic: 'newsletter' })).toBe(true);
    expect(await client.isSuppressed(email, { topic: 'sendgrid:group:4242' })).toBe(true);
    expect(await client.filterSendable([email, 'never-left@example.com'], { topic: 'newsletter' })).toEqual({
      sendable: ['never-left@example.com'],
      suppressed: [{ email, reason: 'topic_unsubscribed' }],
    });
    // Another topic is untouched.
    expect(await client.isSuppressed(email, { topic: 'other-list' })).toBe(false);
    // The in-repo reader answers as the client does, through the same aliases.
    const adapter = (topic: string) =>
      adapterIsSuppressed(email, {
        topic,
        client: stack.clients.doc,
        tableName: stack.config.suppressionTable,
        aliases: parseTopicAliases(ALIASES),
      });
    expect(await adapter('newsletter')).toBe(true);
    expect(await adapter('sendgrid:group:4242')).toBe(true);
    expect(await adapter('other-list')).toBe(false);

    // Back in, under the alias, later: the latest change wins.
    const aliased = new DynamoSuppressionStore(
      stack.clients.doc,
      stack.config.suppressionTable,
      policyFromSettings({ TOPIC_ALIASES: ALIASES }),
    );
    await aliased.resubscribeTopic(email, 'newsletter', { actor: 'ops', reason: 'asked again', at: clock + 20 });
    expect(await client.isSuppressed(email, { topic: 'newsletter' })).toBe(false);
    expect((await client.filterSendable([email], { topic: 'newsletter' })).sendable).toEqual([email]);
    expect(await adapter('newsletter')).toBe(false);
  });
});
