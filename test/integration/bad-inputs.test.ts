/**
 * Bad input on the real stack: a clear 4xx, and nothing written (no inbox row, no token claim,
 * no queue message), for every provider. Provider-specific rules are unit-tested in test/unit;
 * this proves the pipeline turns each rejection into "no side effects".
 */

import { randomBytes } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sampleStandardEvent, signStandardBody, standardMessageId } from '../../lib/demo/standard-webhooks.js';
import { startTestStack, type TestStack } from './harness.js';

describe('bad inputs', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack({
      edge: {
        // `generic` deliberately unconfigured here: its route must be closed, not open.
        secrets: {
          credentials: async (p) => {
            if (p.name === 'generic') return [];
            return (stack.config.settings[p.credentialsVariable] ?? '').split(',').filter(Boolean);
          },
        },
      },
    });
  });
  afterAll(() => stack?.stop());

  async function everything(): Promise<number> {
    const page = await stack.clients.doc.send(new ScanCommand({ TableName: stack.config.inboxTable }));
    const depth = await stack.queueDepth();
    return (page.Items?.length ?? 0) + depth.visible + depth.inFlight;
  }

  function tamper(body: string): string {
    // Change one character inside the email address, which every provider's payload carries.
    return body.replace('victim@example.com', 'victin@example.com');
  }

  const cases: Array<
    [string, string, (provider: string) => { headers: Record<string, string>; body: string }, number[]]
  > = [];
  for (const provider of ['ses', 'sendgrid', 'mailgun', 'postmark', 'standard']) {
    cases.push([
      provider,
      'a body changed after signing',
      (p) => {
        const r = stack.sign(p, 'hard_bounce', 'victim@example.com');
        return { ...r, body: tamper(r.body) };
      },
      [400, 401, 403],
    ]);
    // Older than each sender's window (SendGrid 25 h and Mailgun 9 h follow their retry horizons; SNS: the inbox TTL less a day).
    const staleByHours: Record<string, number> = { sendgrid: 26, mailgun: 10, ses: 30 * 24, standard: 2 };
    if (provider !== 'postmark')
      cases.push([
        provider,
        'a stale timestamp',
        (p) => stack.sign(p, 'hard_bounce', 'victim@example.com', Date.now() - staleByHours[p]! * 3600_000),
        [401],
      ]);
    cases.push([
      provider,
      'no authentication material at all',
      (p) => {
        const r = stack.sign(p, 'hard_bounce', 'victim@example.com');
        // Mailgun signs inside the body; everyone else in headers.
        const body = p === 'mailgun' ? JSON.stringify({ 'event-data': JSON.parse(r.body)['event-data'] }) : r.body;
        return { headers: { 'content-type': 'application/json' }, body };
      },
      [400, 401],
    ]);
    cases.push([
      provider,
      'garbage instead of JSON',
      (p) => {
        const r = stack.sign(p, 'hard_bounce', 'victim@example.com');
        return { headers: r.headers, body: '{not json' };
      },
      [400, 401],
    ]);
  }

  for (const [provider, what, make, statuses] of cases) {
    it(`${provider}: ${what} → 4xx, nothing written`, async () => {
      const before = await everything();
      const response = await stack.post(provider, make(provider));
      // Postmark has no signature and Mailgun's does not cover the body: with valid credentials or a
      // fresh token a changed body is indistinguishable from an authentic one. Mailgun's defence is the
      // single-use token (the replay test below).
      if ((provider === 'postmark' || provider === 'mailgun') && what === 'a body changed after signing') {
        expect(response.status).toBe(200);
        return;
      }
      expect(statuses).toContain(response.status);
      expect(response.body.error).toEqual(expect.any(String));
      expect(await everything()).toBe(before);
    });
  }

  it('a replayed Mailgun token with altered event-data is rejected and writes nothing', async () => {
    const original = stack.sign('mailgun', 'delivered', 'victim@example.com');
    expect((await stack.post('mailgun', original)).status).toBe(200);
    await stack.drain();
    const before = await everything();
    const forged = { ...original, body: original.body.replace('"delivered"', '"complained"') };
    expect(forged.body).not.toBe(original.body);
    const response = await stack.post('mailgun', forged);
    expect(response.status).toBe(409);
    expect(await everything()).toBe(before);
    // The original delivery wrote nothing (no record to update); the forgery must not have created one.
    expect(await stack.record('victim@example.com')).toBeUndefined();
  });

  it('an unknown provider is 404', async () => {
    expect((await stack.post('nope', { headers: {}, body: '{}' })).status).toBe(404);
  });

  it('an unconfigured provider is closed (404), even with a well-formed request', async () => {
    const before = await everything();
    const response = await stack.post('generic', stack.sign('generic', 'complaint', 'victim@example.com'));
    expect(response.status).toBe(404);
    expect(await everything()).toBe(before);
  });

  it('an oversized body is 413 before anything is parsed', async () => {
    const before = await everything();
    const response = await stack.post('sendgrid', { headers: {}, body: Buffer.alloc(1024 * 1024 + 1, 0x20) });
    expect(response.status).toBe(413);
    expect(await everything()).toBe(before);
  });

  it('an authentic event too large to store, even compressed, is 413 and writes nothing', async () => {
    const secret = stack.config.settings.STANDARD_WEBHOOK_SECRETS!.split(',')[0]!;
    // Incompressible padding: gzip cannot bring this event under DynamoDB's 400 KB item limit.
    const event = {
      ...sampleStandardEvent('complaint', 'huge@example.com', Date.now()),
      padding: randomBytes(450 * 1024).toString('base64'),
    };
    const body = JSON.stringify(event);
    expect(body.length).toBeLessThan(1024 * 1024);
    const headers = signStandardBody(secret, standardMessageId(), String(Math.floor(Date.now() / 1000)), body);
    const before = await everything();
    const response = await stack.post('standard', { headers, body });
    expect(response).toMatchObject({ status: 413, body: { error: 'payload_too_large' } });
    expect(await everything()).toBe(before);
  });

  it('only POST is routed', async () => {
    expect((await fetch(`${stack.url}/webhooks/ses`)).status).toBe(405);
  });

  it('never logs signatures, credentials or full addresses', async () => {
    const request = stack.sign('standard', 'complaint', 'private-person@example.com');
    await stack.post('standard', request);
    await stack.post('standard', { ...request, body: tamper(request.body) });
    const logged = JSON.stringify(stack.log.lines);
    expect(logged).not.toContain(request.headers['webhook-signature']!.split(',')[1]);
    expect(logged).not.toContain('private-person@example.com');
    expect(stack.log.lines.length).toBeGreaterThan(0);
  });
});
