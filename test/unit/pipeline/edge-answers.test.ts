/**
 * What each answer of the edge looks like to the provider (status and body), to the operator (the log
 * line) and to the dashboards (the counters). The bodies and codes are the contract with providers'
 * retry logic; the log lines and counter names are what alarms and runbooks are built on.
 */
import { describe, expect, it } from 'vitest';
import type { MemoryCounters } from '../../../lambdas/adapters/observability.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { recordingLog } from '../support/log.js';
import { edgeWith, event, PrepareFailingInbox, request, StoreBugError } from './fakes.js';

const topicArn = 'arn:aws:sns:us-east-1:123456789012:t';

function loggedEdge(overrides: Parameters<typeof edgeWith>[0] = {}) {
  const { log, lines } = recordingLog();
  return { ...edgeWith({ log, ...overrides }), lines };
}

const totals = (counters: MemoryCounters) => Object.fromEntries(counters.totals);

describe('edge answers: accepted requests', () => {
  it('logs one INFO line with the tally and the ignored reasons, and counts admitted, duplicate and ignored events', async () => {
    const { edge, counters, lines } = loggedEdge();
    const events = [
      event({ eventId: 'a' }),
      event({ eventId: 'b', kind: 'ignored', ignoredReason: 'open' }),
      event({ eventId: 'c', kind: 'ignored' }),
    ];
    expect(await edge.receive('fake', request({ events }))).toEqual({
      status: 200,
      body: {
        ok: true,
        received: 3,
        admitted: 1,
        duplicates: 0,
        ignored: 2,
        ignoredReasons: { open: 1, unspecified: 1 },
      },
    });
    expect(lines).toEqual([
      [
        'info',
        'webhook accepted',
        {
          provider: 'fake',
          received: 3,
          admitted: 1,
          duplicates: 0,
          ignored: 2,
          ignoredReasons: { open: 1, unspecified: 1 },
        },
      ],
    ]);
    expect(totals(counters)).toEqual({
      'EventsAdmitted{provider=fake}': 1,
      'EventsDuplicate{provider=fake}': 0,
      'EventsIgnored{provider=fake}': 2,
    });

    await edge.receive('fake', request({ events: [event({ eventId: 'a' })] }));
    expect(totals(counters)).toEqual({
      'EventsAdmitted{provider=fake}': 1,
      'EventsDuplicate{provider=fake}': 1,
      'EventsIgnored{provider=fake}': 2,
    });
  });
});

describe('edge answers: transient failures (503, the provider retries)', () => {
  it('the send fails: an ERROR line naming the error, one TransientFailures and nothing else counted', async () => {
    const { edge, queue, counters, lines } = loggedEdge();
    queue.failNext = 1;
    expect(await edge.receive('fake', request({ events: [event()] }))).toEqual({
      status: 503,
      body: { error: 'transient_failure' },
    });
    expect(lines).toEqual([
      [
        'error',
        'enqueue failed; nothing stored, the provider will retry',
        { provider: 'fake', error: 'TransientError: queue down' },
      ],
    ]);
    expect(totals(counters)).toEqual({ 'TransientFailures{provider=fake}': 1 });
  });

  it('a put fails after the send: an ERROR line per failed put, the tally counted, and one TransientFailures', async () => {
    const { edge, inbox, counters, lines } = loggedEdge();
    inbox.failStoreFor.add('b');
    const events = [event({ eventId: 'a' }), event({ eventId: 'b' }), event({ eventId: 'i', kind: 'ignored' })];
    expect(await edge.receive('fake', request({ events }))).toEqual({
      status: 503,
      body: { error: 'transient_failure' },
    });
    expect(lines).toEqual([
      [
        'error',
        'inbox put failed after the send; the provider will retry',
        { provider: 'fake', error: 'TransientError: inbox down' },
      ],
    ]);
    expect(totals(counters)).toEqual({
      'EventsAdmitted{provider=fake}': 1,
      'EventsDuplicate{provider=fake}': 0,
      'EventsIgnored{provider=fake}': 1,
      'TransientFailures{provider=fake}': 1,
    });
  });

  it('the credentials cannot be loaded: an ERROR "webhook rejected" line with the reason, counted as transient', async () => {
    const { edge, counters, lines } = loggedEdge({
      secrets: {
        credentials: async () => {
          throw new Error('secrets manager down');
        },
      },
    });
    expect(await edge.receive('fake', request({ events: [event()] }))).toEqual({
      status: 503,
      body: { error: 'transient_failure' },
    });
    expect(lines).toEqual([
      [
        'error',
        'webhook rejected',
        { provider: 'fake', status: 503, code: 'transient_failure', reason: 'could not load provider credentials' },
      ],
    ]);
    expect(totals(counters)).toEqual({ 'TransientFailures{provider=fake}': 1 });
  });
});

describe('edge answers: refusals (4xx, the provider stops)', () => {
  it('logs a WARN "webhook rejected" line with status, code and reason, and counts RequestsRejected', async () => {
    const cases: Array<{
      provider: string;
      req: WebhookRequest;
      credentials?: string[];
      status: number;
      code: string;
      reason: string;
    }> = [
      {
        provider: 'fake',
        req: request({ events: [event()] }, 'wrong'),
        status: 401,
        code: 'authentication_failed',
        reason: 'bad key',
      },
      {
        provider: 'nope',
        req: request({ events: [event()] }),
        status: 404,
        code: 'provider_not_found',
        reason: 'unknown provider',
      },
      {
        provider: 'fake',
        req: request({ events: [event()] }),
        credentials: [],
        status: 404,
        code: 'provider_not_found',
        reason: 'provider is not configured',
      },
      {
        provider: 'fake',
        req: { body: Buffer.alloc(1025), headers: {} },
        status: 413,
        code: 'payload_too_large',
        reason: 'body exceeds the size cap',
      },
    ];
    for (const { provider, req, credentials, status, code, reason } of cases) {
      const { edge, counters, lines, setCredentials } = loggedEdge();
      if (credentials) setCredentials(credentials);
      expect(await edge.receive(provider, req)).toEqual({ status, body: { error: code } });
      expect(lines).toEqual([['warn', 'webhook rejected', { provider, status, code, reason }]]);
      expect(totals(counters)).toEqual({ [`RequestsRejected{provider=${provider}}`]: 1 });
    }
  });
});

describe('edge answers: failures that are ours (5xx)', () => {
  it('an unexpected error: 500 internal_error, an ERROR line naming it, one TransientFailures', async () => {
    const { edge, counters, lines } = loggedEdge();
    expect(await edge.receive('fake', request({ crash: true }))).toEqual({
      status: 500,
      body: { error: 'internal_error' },
    });
    expect(lines).toEqual([['error', 'unexpected edge failure', { provider: 'fake', error: 'TypeError: bug' }]]);
    expect(totals(counters)).toEqual({ 'TransientFailures{provider=fake}': 1 });
  });

  it('a WebhookError with status exactly 500 is logged as an ERROR and counted as transient, not as a refusal', async () => {
    const inbox = new PrepareFailingInbox(new StoreBugError('row encoder broke'));
    const { edge, counters, lines } = loggedEdge({ inbox });
    expect(await edge.receive('fake', request({ events: [event({ eventId: 'bad' })] }))).toEqual({
      status: 500,
      body: { error: 'store_bug' },
    });
    expect(lines).toEqual([
      ['error', 'webhook rejected', { provider: 'fake', status: 500, code: 'store_bug', reason: 'row encoder broke' }],
    ]);
    expect(totals(counters)).toEqual({ 'TransientFailures{provider=fake}': 1 });
  });
});

describe('edge answers: SNS control messages', () => {
  it('an UnsubscribeConfirmation: 200 with the control named, a WARN line with the topic, one counter', async () => {
    const { edge, counters, lines, confirmer } = loggedEdge();
    const control = { type: 'UnsubscribeConfirmation', topicArn, messageId: 'm2' };
    expect(await edge.receive('fake', request({ control }))).toEqual({
      status: 200,
      body: { ok: true, control: 'UnsubscribeConfirmation' },
    });
    expect(lines).toEqual([['warn', 'SNS UnsubscribeConfirmation received; no action taken', { topicArn }]]);
    expect(totals(counters)).toEqual({ 'UnsubscribeConfirmations{provider=fake}': 1 });
    expect(confirmer.calls).toEqual([]);
  });

  it('a SubscriptionConfirmation is confirmed once per SNS message id, logged and counted once', async () => {
    const { edge, counters, lines, confirmer, ledger } = loggedEdge();
    const control = { type: 'SubscriptionConfirmation', topicArn, token: 'tok', messageId: 'm1' };
    expect(await edge.receive('fake', request({ control }))).toEqual({
      status: 200,
      body: { ok: true, control: 'SubscriptionConfirmation' },
    });
    expect(lines).toEqual([['info', 'SNS subscription confirmed', { topicArn }]]);
    expect(totals(counters)).toEqual({ 'SubscriptionsConfirmed{provider=fake}': 1 });
    expect([...ledger.done]).toEqual(['sns-subscription#m1']);

    expect(await edge.receive('fake', request({ control }))).toEqual({
      status: 200,
      body: { ok: true, control: 'SubscriptionConfirmation', alreadyConfirmed: true },
    });
    expect(lines).toHaveLength(1);
    expect(totals(counters)).toEqual({ 'SubscriptionsConfirmed{provider=fake}': 1 });

    // Another message (SNS resends a confirmation with a new id and token) is a new action.
    expect(
      (await edge.receive('fake', request({ control: { ...control, token: 'tok2', messageId: 'm3' } }))).body,
    ).toEqual({
      ok: true,
      control: 'SubscriptionConfirmation',
    });
    expect(confirmer.calls).toEqual([
      [topicArn, 'tok'],
      [topicArn, 'tok2'],
    ]);
    expect([...ledger.done]).toEqual(['sns-subscription#m1', 'sns-subscription#m3']);
  });

  it('a failed confirmation is a 503 whose log line says what failed, and nothing is marked done', async () => {
    const { edge, counters, lines, confirmer, ledger } = loggedEdge();
    confirmer.fail = true;
    const control = { type: 'SubscriptionConfirmation', topicArn, token: 'tok', messageId: 'm1' };
    expect(await edge.receive('fake', request({ control }))).toEqual({
      status: 503,
      body: { error: 'transient_failure' },
    });
    expect(lines).toEqual([
      [
        'error',
        'webhook rejected',
        { provider: 'fake', status: 503, code: 'transient_failure', reason: 'subscription confirmation failed' },
      ],
    ]);
    expect(totals(counters)).toEqual({ 'TransientFailures{provider=fake}': 1 });
    expect(ledger.done.size).toBe(0);
  });
});
