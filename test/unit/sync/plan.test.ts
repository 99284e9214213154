/**
 * The sync planner, on records built by the real ratchet (events, manual actions, topics), never by
 * hand, so the planner is tested on shapes the table really holds.
 */
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  changeTopicManually,
  DEFAULT_RATCHET_POLICY,
  reactivate,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { manuallyReactivated, type PlanContext, planSync, providerScopes } from '../../../lambdas/core/sync/plan.js';
import { type ProviderSyncState, recordOutcome } from '../../../lambdas/core/sync/state.js';
import { NO_TOPIC_ALIASES, parseTopicAliases } from '../../../lambdas/core/topics.js';
import { EMAIL, ev, T0 } from '../suppression/support.js';

const aliases = parseTopicAliases('sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter');
const policy = { ...DEFAULT_RATCHET_POLICY, topicAliases: aliases };
const sendgrid: PlanContext = { aliases, handlesScope: (s) => s.startsWith('sendgrid:group:') };
const postmark: PlanContext = { aliases, handlesScope: (s) => s.startsWith('postmark:stream:') };
const ses: PlanContext = { aliases, handlesScope: () => false };
const ACTION = { actor: 'ops', reason: 'asked', at: T0 + 10_000 };

function complained(at = T0): SuppressionRecord {
  return applyEvent(undefined, ev('complaint', at), policy).record;
}

function topicEvent(
  kind: 'unsubscribe' | 'subscribe',
  topic: string,
  at: number,
  record?: SuppressionRecord,
): SuppressionRecord {
  return applyEvent(record, { ...ev(kind, at, { provider: 'sendgrid' }), topic }, policy).record;
}

const pushedGlobal = (record: SuppressionRecord, lists = ['account']): ProviderSyncState =>
  recordOutcome(undefined, { op: 'suppress', email: record.email, reason: record.reason! }, { lists }, T0);

describe('planSync: global suppression', () => {
  it('no record, or an active record never pushed: nothing', () => {
    expect(planSync(undefined, undefined, ses)).toEqual([]);
    expect(planSync(applyEvent(undefined, ev('soft_bounce', T0), policy).record, undefined, ses)).toEqual([]);
  });

  it('a complaint: suppress with reason complaint', () => {
    expect(planSync(complained(), undefined, ses)).toEqual([{ op: 'suppress', email: EMAIL, reason: 'complaint' }]);
  });

  it.each(['hard_bounce', 'unsubscribe'] as const)('a %s: suppress with that reason', (kind) => {
    const record = applyEvent(undefined, ev(kind, T0), policy).record;
    expect(planSync(record, undefined, ses)).toEqual([{ op: 'suppress', email: EMAIL, reason: kind }]);
  });

  it('a manual suppression: suppress with reason manual', () => {
    const record = suppressManually(undefined, EMAIL, ACTION, policy).record;
    expect(planSync(record, undefined, ses)).toEqual([{ op: 'suppress', email: EMAIL, reason: 'manual' }]);
  });

  it('already pushed with the same reason: nothing', () => {
    const record = complained();
    expect(planSync(record, pushedGlobal(record), ses)).toEqual([]);
  });

  it('the reason changed (an unsubscribe, then a complaint): suppress again with the new reason', () => {
    const first = applyEvent(undefined, ev('unsubscribe', T0), policy).record;
    const pushed = pushedGlobal(first);
    const then = applyEvent(first, ev('complaint', T0 + 1), policy).record;
    expect(planSync(then, pushed, ses)).toEqual([{ op: 'suppress', email: EMAIL, reason: 'complaint' }]);
  });

  it('a manual reactivation after a push: unsuppress exactly the lists pushed to', () => {
    const record = complained();
    const pushed = pushedGlobal(record, ['complaints@a.example', 'complaints@b.example']);
    const active = reactivate(record, ACTION, policy).record;
    expect(active.status).toBe('active');
    expect(planSync(active, pushed, ses)).toEqual([
      { op: 'unsuppress', email: EMAIL, lists: ['complaints@a.example', 'complaints@b.example'] },
    ]);
  });

  it('a reactivation of an address never pushed: nothing to remove', () => {
    const active = reactivate(complained(), ACTION, policy).record;
    expect(planSync(active, undefined, ses)).toEqual([]);
  });

  it('reactivated, but evidence dated after it keeps it suppressed: nothing is lifted', () => {
    const record = applyEvent(
      reactivate(complained(), ACTION, policy).record,
      ev('hard_bounce', ACTION.at + 1),
      policy,
    ).record;
    expect(record.status).toBe('suppressed');
    const pushed = pushedGlobal(complained());
    expect(planSync(record, pushed, ses)).toEqual([{ op: 'suppress', email: EMAIL, reason: 'hard_bounce' }]);
  });

  it('active without an audited reactivation (an impossible record): nothing automatic lifts a suppression', () => {
    const forged: SuppressionRecord = {
      ...complained(),
      status: 'active',
      reasons: [],
      reason: undefined,
      reactivatedAt: T0 + 5,
    };
    expect(manuallyReactivated(forged)).toBe(false);
    expect(planSync(forged, pushedGlobal(complained()), ses)).toEqual([]);
  });

  it('a topic restore in the audit is not a reactivation', () => {
    const record = changeTopicManually(complained(), EMAIL, 'newsletter', 'subscribe', ACTION, policy).record;
    expect(manuallyReactivated({ ...record, reactivatedAt: ACTION.at })).toBe(false);
  });
});

describe('planSync: topics and TOPIC_ALIASES', () => {
  it('a group-7 unsubscribe reaches SendGrid group 7 and Postmark broadcast, never globally', () => {
    const record = topicEvent('unsubscribe', 'sendgrid:group:7', T0);
    expect(record.status).toBe('active');
    expect(planSync(record, undefined, sendgrid)).toEqual([
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ]);
    expect(planSync(record, undefined, postmark)).toEqual([
      { op: 'suppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' },
    ]);
    expect(planSync(record, undefined, ses)).toEqual([]);
  });

  it('an opt-in after an opt-out pushed: unsuppressScope where Ratchet suppressed it', () => {
    const out = topicEvent('unsubscribe', 'sendgrid:group:7', T0);
    const pushed = recordOutcome(
      undefined,
      { op: 'suppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' },
      { lists: ['stream:broadcast'] },
      T0,
    );
    const back = topicEvent('subscribe', 'postmark:stream:broadcast', T0 + 1, out);
    expect(planSync(back, pushed, postmark)).toEqual([
      { op: 'unsuppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' },
    ]);
    expect(planSync(back, undefined, sendgrid)).toEqual([]);
  });

  it('an unmapped topic goes only to the scope it names', () => {
    const record = applyEvent(
      undefined,
      { ...ev('unsubscribe', T0), topic: 'sendgrid:group:9' },
      { ...policy, topicAliases: NO_TOPIC_ALIASES },
    ).record;
    const context = { aliases: NO_TOPIC_ALIASES, handlesScope: sendgrid.handlesScope };
    expect(planSync(record, undefined, context)).toEqual([
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:9' },
    ]);
  });

  it('a topic stored under its canonical name before an alias was set speaks for nothing (the alias does)', () => {
    expect(providerScopes('sendgrid:group:7', sendgrid)).toEqual([]);
    expect(providerScopes('newsletter', sendgrid)).toEqual(['sendgrid:group:7']);
    expect(providerScopes('newsletter', postmark)).toEqual(['postmark:stream:broadcast']);
  });

  it('a global suppression and a topic opt-out together: both, global first', () => {
    const record = topicEvent('unsubscribe', 'sendgrid:group:7', T0, complained());
    expect(planSync(record, undefined, sendgrid)).toEqual([
      { op: 'suppress', email: EMAIL, reason: 'complaint' },
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ]);
  });
});

describe('recordOutcome', () => {
  it('suppress records reason, provider reason and lists; unsuppress clears them and keeps the answer', () => {
    const suppressed = recordOutcome(
      undefined,
      { op: 'suppress', email: EMAIL, reason: 'unsubscribe' },
      { lists: ['account'], providerReason: 'BOUNCE' },
      5,
    );
    expect(suppressed).toEqual({ at: 5, reason: 'unsubscribe', providerReason: 'BOUNCE', lists: ['account'] });
    const removed = recordOutcome(
      suppressed,
      { op: 'unsuppress', email: EMAIL, lists: ['account'] },
      { lists: [], refused: [{ list: 'account', why: 'SpamComplaint kept' }] },
      9,
      7,
    );
    expect(removed).toEqual({
      at: 9,
      lists: [],
      refused: [{ list: 'account', why: 'SpamComplaint kept' }],
      reactivation: { auditAt: 7, removed: [], refused: [{ list: 'account', why: 'SpamComplaint kept' }] },
    });
  });

  it('a later suppress clears a failed mark and unions lists', () => {
    const state: ProviderSyncState = {
      at: 1,
      lists: ['bounces@a'],
      reason: 'hard_bounce',
      failed: { at: 1, change: 3, error: 'x' },
    };
    expect(
      recordOutcome(state, { op: 'suppress', email: EMAIL, reason: 'complaint' }, { lists: ['complaints@a'] }, 2),
    ).toEqual({
      at: 2,
      lists: ['bounces@a', 'complaints@a'],
      reason: 'complaint',
    });
  });

  it('scopes are added and removed one by one', () => {
    const a = recordOutcome(
      undefined,
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
      { lists: ['group:7'] },
      1,
    );
    expect(a.scopes).toEqual({ 'sendgrid:group:7': ['group:7'] });
    const b = recordOutcome(
      a,
      { op: 'unsuppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
      { lists: ['group:7'] },
      2,
    );
    expect(b.scopes).toBeUndefined();
  });
});

describe('planSync: order', () => {
  it('plans topic scopes in topic-name order, whatever order the record lists them in', () => {
    const groups: PlanContext = { aliases: NO_TOPIC_ALIASES, handlesScope: (s) => s.startsWith('sendgrid:group:') };
    let record = topicEvent('unsubscribe', 'sendgrid:group:9', T0);
    record = topicEvent('unsubscribe', 'sendgrid:group:10', T0 + 1, record);
    record = topicEvent('unsubscribe', 'sendgrid:group:2', T0 + 2, record);
    const reordered = { ...record, topics: Object.fromEntries(Object.entries(record.topics ?? {}).reverse()) };
    for (const r of [record, reordered]) {
      expect(planSync(r, undefined, groups).map((o) => (o.op === 'suppressScope' ? o.scope : o.op))).toEqual([
        'sendgrid:group:10',
        'sendgrid:group:2',
        'sendgrid:group:9',
      ]);
    }
  });
});
