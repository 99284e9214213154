/**
 * Exact results for the small pure pieces of the sync core: the planner's edge cases, the state an
 * answer leaves, the sync projection and marker rule, the sweeper's messages, the queue message
 * parser and the sync settings (with the error texts operators read).
 */
import { describe, expect, it } from 'vitest';
import { MalformedRequestError } from '../../../lambdas/core/errors.js';
import { type AuditEntry, emptyRecord, type SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import { DEAD_DUE_MS, laggingProviders, markerAfter, syncProjection } from '../../../lambdas/core/sync/ledger.js';
import { parseSyncMessage } from '../../../lambdas/core/sync/message.js';
import { manuallyReactivated, type PlanContext, planSync, providerScopes } from '../../../lambdas/core/sync/plan.js';
import { parseProviderValues, parseSyncProviders, syncSettings } from '../../../lambdas/core/sync/settings.js';
import { type ProviderSyncState, recordOutcome } from '../../../lambdas/core/sync/state.js';
import { sweepMessages } from '../../../lambdas/core/sync/sweep.js';
import { SyncRateLimitedError } from '../../../lambdas/core/sync/target.js';
import { NO_TOPIC_ALIASES } from '../../../lambdas/core/topics.js';

const EMAIL = 'someone@example.com';
const T = Date.UTC(2024, 0, 1);

function record(over: Partial<SuppressionRecord> = {}): SuppressionRecord {
  return { ...emptyRecord(EMAIL), ...over };
}
const topic = (status: 'unsubscribed' | 'subscribed') => ({ status, changedAt: T, evidence: {} });
const audit = (over: Partial<AuditEntry>): AuditEntry => ({
  action: 'reactivate',
  actor: 'ops',
  reason: 'r',
  at: T,
  ...over,
});
const everything: PlanContext = { aliases: NO_TOPIC_ALIASES, handlesScope: () => true };
const pushed: ProviderSyncState = { at: T, reason: 'complaint', lists: ['account'] };

describe('planSync edge cases', () => {
  it('a suppressed status without a reason, or a reason on an active record, pushes no suppression', () => {
    expect(planSync(record({ status: 'suppressed' }), undefined, everything)).toStrictEqual([]);
    expect(planSync(record({ reason: 'complaint' }), undefined, everything)).toStrictEqual([]);
    // Pushed before: still no suppression with an undefined reason (and no unsuppress without a reactivation).
    expect(planSync(record({ status: 'suppressed' }), pushed, everything)).toStrictEqual([]);
  });

  it('topic operations come in topic order whatever order the record keeps them in', () => {
    const r = record({ topics: { c: topic('unsubscribed'), a: topic('unsubscribed'), b: topic('unsubscribed') } });
    expect(planSync(r, undefined, everything).map((o) => (o.op === 'suppressScope' ? o.scope : o.op))).toStrictEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('a record without a topics map plans no topic operations', () => {
    const r = record();
    delete (r as Partial<SuppressionRecord>).topics;
    expect(planSync(r, undefined, everything)).toStrictEqual([]);
  });

  it('only an audited manual reactivation at reactivatedAt undoes a global suppression', () => {
    const at = (entries: AuditEntry[]) => manuallyReactivated(record({ reactivatedAt: T, audit: entries }));
    expect(at([audit({})])).toBe(true);
    expect(at([audit({ action: 'suppress' })])).toBe(false);
    expect(at([audit({ at: T - 1 })])).toBe(false);
    expect(at([audit({ topic: 'news' })])).toBe(false);
    expect(manuallyReactivated(record({ audit: [audit({})] }))).toBe(false);
    expect(at([])).toBe(false);
    expect(
      planSync(record({ reactivatedAt: T, audit: [audit({ action: 'suppress' })] }), pushed, everything),
    ).toStrictEqual([]);
    expect(planSync(record({ reactivatedAt: T, audit: [audit({})] }), pushed, everything)).toStrictEqual([
      { op: 'unsuppress', email: EMAIL, lists: ['account'] },
    ]);
  });

  it('providerScopes keeps only the scopes the provider can hold', () => {
    const context: PlanContext = {
      aliases: new Map([['sendgrid:group:7', 'news']]),
      handlesScope: (s) => s.startsWith('sendgrid:'),
    };
    expect(providerScopes('news', context)).toStrictEqual(['sendgrid:group:7']);
    expect(providerScopes('postmark:stream:x', context)).toStrictEqual([]);
    const two: PlanContext = {
      aliases: new Map([
        ['sendgrid:group:9', 'news'],
        ['sendgrid:group:7', 'news'],
      ]),
      handlesScope: () => true,
    };
    expect(providerScopes('news', two)).toStrictEqual(['news', 'sendgrid:group:7', 'sendgrid:group:9']);
  });
});

describe('recordOutcome', () => {
  it('suppress: lists are the sorted union, and a providerReason not given now is dropped', () => {
    const before: ProviderSyncState = { at: 1, reason: 'unsubscribe', providerReason: 'BOUNCE', lists: ['c', 'a'] };
    expect(
      recordOutcome(before, { op: 'suppress', email: EMAIL, reason: 'complaint' }, { lists: ['b', 'a'] }, 2),
    ).toStrictEqual({ at: 2, reason: 'complaint', lists: ['a', 'b', 'c'] });
  });

  it('unsuppress with nothing refused leaves no refused key', () => {
    expect(
      recordOutcome(pushed, { op: 'unsuppress', email: EMAIL, lists: ['account'] }, { lists: ['account'] }, 2, T),
    ).toStrictEqual({
      at: 2,
      lists: [],
      reactivation: { auditAt: T, removed: ['account'], refused: [] },
    });
  });

  it('suppressScope records the provider’s lists, or the scope itself when it names none', () => {
    const op = { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' } as const;
    expect(recordOutcome(undefined, op, { lists: ['group:7'] }, 2)).toStrictEqual({
      at: 2,
      lists: [],
      scopes: { 'sendgrid:group:7': ['group:7'] },
    });
    expect(recordOutcome(undefined, op, { lists: [] }, 2)).toStrictEqual({
      at: 2,
      lists: [],
      scopes: { 'sendgrid:group:7': ['sendgrid:group:7'] },
    });
  });

  it('unsuppressScope appends what was refused to what was refused before, and adds nothing when nothing was', () => {
    const op = { op: 'unsuppressScope', email: EMAIL, scope: 's' } as const;
    const before: ProviderSyncState = { at: 1, lists: [], scopes: { s: ['s'], t: ['t'] } };
    expect(recordOutcome(before, op, { lists: ['s'] }, 2)).toStrictEqual({ at: 2, lists: [], scopes: { t: ['t'] } });
    expect(recordOutcome(before, op, { lists: [], refused: [{ list: 's', why: 'w' }] }, 2)).toStrictEqual({
      at: 2,
      lists: [],
      scopes: { t: ['t'] },
      refused: [{ list: 's', why: 'w' }],
    });
    const earlier = { ...before, refused: [{ list: 'p', why: 'old' }] };
    expect(recordOutcome(earlier, op, { lists: [], refused: [{ list: 's', why: 'w' }] }, 2).refused).toStrictEqual([
      { list: 'p', why: 'old' },
      { list: 's', why: 'w' },
    ]);
  });
});

describe('syncProjection, laggingProviders, markerAfter', () => {
  it('the projection is status, reason, reactivation and the sorted topic states', () => {
    const r = record({
      status: 'suppressed',
      reason: 'complaint',
      reactivatedAt: T,
      topics: { b: topic('unsubscribed'), a: topic('subscribed') },
    });
    expect(syncProjection(r)).toBe(JSON.stringify(['suppressed', 'complaint', T, ['a=subscribed', 'b=unsubscribed']]));
    const bare = record();
    delete (bare as Partial<SuppressionRecord>).topics;
    expect(syncProjection(bare)).toBe('["active",null,null,[]]');
    expect(syncProjection(record())).toBe(syncProjection(undefined));
  });

  it('a provider behind without a failure lags; one dead for this change does not', () => {
    const view = {
      change: 2,
      sync: {
        ses: { at: T, lists: [], change: 1 },
        sendgrid: { at: T, lists: [], change: 1, failed: { at: T, change: 2, error: 'e' } },
      },
    };
    expect(laggingProviders(view, ['ses', 'sendgrid', 'resend'])).toStrictEqual(['ses', 'resend']);
  });

  it('caught up with nothing refused: clear; a refusal or a dead change parks it', () => {
    const at = (state: ProviderSyncState) => markerAfter({ change: 1, sync: { ses: state } }, ['ses']);
    expect(at({ at: T, lists: [], change: 1 })).toBe('clear');
    expect(at({ at: T, lists: [], change: 1, refused: [] })).toBe('clear');
    expect(at({ at: T, lists: [], change: 1, refused: [{ list: 'spam', why: 'w' }] })).toStrictEqual({
      due: DEAD_DUE_MS,
    });
    expect(at({ at: T, lists: [], change: 0, failed: { at: T, change: 1, error: 'e' } })).toStrictEqual({
      due: DEAD_DUE_MS,
    });
  });
});

describe('sweepMessages', () => {
  it('one message per lagging provider; nobody lagging: exactly one, to the first provider', () => {
    const caught = { at: T, lists: [], change: 3 };
    expect(
      sweepMessages(
        [
          { email: 'a@example.com', change: 3, sync: { ses: caught } },
          { email: 'b@example.com', change: 3, sync: { ses: caught, sendgrid: caught } },
        ],
        ['ses', 'sendgrid'],
      ),
    ).toStrictEqual([
      { email: 'a@example.com', provider: 'sendgrid' },
      { email: 'b@example.com', provider: 'ses' },
    ]);
  });
});

describe('parseSyncMessage', () => {
  it.each(['null', '"x"', '[]', '{"email":1,"provider":"ses"}', '{"email":"","provider":"ses"}', '{"provider":"ses"}'])(
    '%s → no email',
    (body) => {
      expect(() => parseSyncMessage(body)).toThrow(new MalformedRequestError('sync message has no email'));
    },
  );

  it('an unknown or missing provider, and a body that is not JSON, are refused by name', () => {
    expect(() => parseSyncMessage('{"email":"a@example.com","provider":"sparkpost"}')).toThrow(
      new MalformedRequestError('sync message has no known provider'),
    );
    expect(() => parseSyncMessage('{"email":"a@example.com"}')).toThrow(MalformedRequestError);
    expect(() => parseSyncMessage('{')).toThrow(new MalformedRequestError('sync message is not JSON'));
    expect(parseSyncMessage('{"email":"a@example.com","provider":"resend","x":1}')).toStrictEqual({
      email: 'a@example.com',
      provider: 'resend',
    });
  });
});

describe('sync settings', () => {
  it('blank means none; names are trimmed in the error too', () => {
    expect(parseSyncProviders('')).toStrictEqual([]);
    expect(parseSyncProviders('   ')).toStrictEqual([]);
    expect(() => parseSyncProviders('ses, sparkpost ', 'X')).toThrow(
      new Error('X: "sparkpost" is not one of ses, sendgrid, postmark, mailgun, resend'),
    );
  });

  it('defaults, and the exact error for each bound', () => {
    const s = syncSettings({});
    expect(s).toStrictEqual({
      providers: [],
      retryHorizonMs: 3_600_000,
      limits: {
        ses: { concurrency: 4, rate: 5 },
        sendgrid: { concurrency: 4, rate: 10 },
        postmark: { concurrency: 4, rate: 10 },
        mailgun: { concurrency: 4, rate: 10 },
        resend: { concurrency: 1, rate: 1 },
      },
    });
    expect(() => syncSettings({ SYNC_SES_CONCURRENCY: '1.5' })).toThrow(
      new Error('SYNC_SES_CONCURRENCY must be a whole number of calls in flight from 1 to 64, got "1.5"'),
    );
    expect(() => syncSettings({ SYNC_MAILGUN_RATE: '1001' })).toThrow(
      new Error('SYNC_MAILGUN_RATE must be calls per second, more than 0 and at most 1000, got "1001"'),
    );
    expect(() => syncSettings({ SYNC_RETRY_SECONDS: '1.5' })).toThrow(
      new Error('SYNC_RETRY_SECONDS must be a whole number of seconds from 1 to 86400, got "1.5"'),
    );
    expect(syncSettings({ SYNC_RETRY_SECONDS: '60', SYNC_POSTMARK_CONCURRENCY: '64' })).toMatchObject({
      retryHorizonMs: 60_000,
      limits: { postmark: { concurrency: 64, rate: 10 } },
    });
  });
});

describe('parseProviderValues (context syncRates, syncConcurrency)', () => {
  it('provider=value pairs, spaces and case ignored, unset or blank none; the values left as text', () => {
    expect([...parseProviderValues(' SendGrid = 50 ,ses=0.5', 'K')]).toStrictEqual([
      ['sendgrid', '50'],
      ['ses', '0.5'],
    ]);
    expect(parseProviderValues(undefined, 'K').size).toBe(0);
    expect(parseProviderValues('  ', 'K').size).toBe(0);
  });

  it('refuses an entry that is not provider=value, an unknown provider and one named twice, naming the key', () => {
    expect(() => parseProviderValues('ses=1,sendgrid', 'K')).toThrow(/^K entry 2 is not provider=value$/);
    expect(() => parseProviderValues('ses=', 'K')).toThrow(/^K entry 1 is not provider=value$/);
    expect(() => parseProviderValues('=5', 'K')).toThrow(/^K entry 1 is not provider=value$/);
    expect(() => parseProviderValues('ses=1=2', 'K')).toThrow(/^K entry 1 is not provider=value$/);
    expect(() => parseProviderValues('sparkpost=1', 'K')).toThrow(/^K: "sparkpost" is not one of ses, sendgrid/);
    expect(() => parseProviderValues('ses=1, SES=2', 'K')).toThrow(/^K names ses twice$/);
  });
});

describe('SyncRateLimitedError', () => {
  it('names the provider and the retry time, as the worker logs it', () => {
    const error = new SyncRateLimitedError('sendgrid', Date.UTC(2026, 11, 2, 1, 2, 3));
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SyncRateLimitedError');
    expect(error.message).toBe('sendgrid rate limit: retry at 2026-12-02T01:02:03.000Z');
    expect([error.provider, error.retryAtMs]).toEqual(['sendgrid', Date.UTC(2026, 11, 2, 1, 2, 3)]);
  });
});
