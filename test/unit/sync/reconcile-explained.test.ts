/**
 * compareAddress: what explains a provider's entry, at the edges of the rules. An entry is Ratchet's own
 * decision only when Ratchet has decided something about it: a manual reactivation (dated entries at or
 * before it; entries on lists it pushed to, whose removal the planner plans), or a topic's opt-in (entries
 * in a scope it suppressed). Without one, the entry is drift. Exact results, as in reconcile.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { planSync } from '../../../lambdas/core/sync/plan.js';
import { compareAddress } from '../../../lambdas/core/sync/reconcile.js';
import type { ProviderSyncState } from '../../../lambdas/core/sync/state.js';
import { drift, EMAIL, empty, entry, groups, noScopes, record, T, topic } from './support/reconcile-fixtures.js';

describe('compareAddress: a global entry without a reactivation to explain it', () => {
  it('no record at all, a dated entry: drift, imported with the kind its words say', () => {
    const dated = entry('bounces', { reason: 'Hard Bounce', date: T });
    const shown = { email: EMAIL, list: 'bounces', reason: 'Hard Bounce', date: T };
    expect(compareAddress(EMAIL, undefined, undefined, [dated], noScopes)).toStrictEqual(
      drift({ missingInRatchet: [shown], imports: [{ entry: shown, kind: 'hard_bounce' }] }),
    );
  });

  it('never reactivated, yet a reason pushed to that list: no removal is planned, so the entry is drift', () => {
    // An active record Ratchet never reactivated (the shape the planner refuses to lift a suppression for).
    const pushed: ProviderSyncState = { at: T, reason: 'complaint', lists: ['spam'] };
    const active = record();
    expect(planSync(active, pushed, noScopes)).toStrictEqual([]);
    expect(compareAddress(EMAIL, active, pushed, [entry('spam')], noScopes)).toStrictEqual(
      drift({
        missingInRatchet: [{ email: EMAIL, list: 'spam' }],
        imports: [{ entry: { email: EMAIL, list: 'spam' }, kind: 'complaint' }],
      }),
    );
    // No record at all: the same.
    expect(compareAddress(EMAIL, undefined, pushed, [entry('spam')], noScopes).imports).toStrictEqual([
      { entry: { email: EMAIL, list: 'spam' }, kind: 'complaint' },
    ]);
    // Reactivated: the planned removal explains it.
    expect(compareAddress(EMAIL, record({ reactivatedAt: T }), pushed, [entry('spam')], noScopes)).toStrictEqual(empty);
  });
});

describe('compareAddress: a scope entry without an opt-in to explain it', () => {
  it('a scope Ratchet suppressed, but no state for its topic (TOPIC_ALIASES no longer maps it): drift', () => {
    // Pushed while group 7 was `newsletter`'s; today group 7 is its own topic, and the record has none.
    const optedIn = record({ topics: { newsletter: topic('subscribed') } });
    const pushed: ProviderSyncState = { at: T, lists: [], scopes: { 'sendgrid:group:7': ['group:7'] } };
    // No removal is planned for it...
    expect(planSync(optedIn, pushed, groups)).toStrictEqual([]);
    // ...so the entry is not a removal still to come: it is imported as the scope's opt-out.
    const group7 = entry('group:7', { scope: 'sendgrid:group:7' });
    expect(compareAddress(EMAIL, optedIn, pushed, [group7], groups)).toStrictEqual(
      drift({
        missingInRatchet: [{ email: EMAIL, list: 'group:7' }],
        imports: [{ entry: { email: EMAIL, list: 'group:7' }, kind: 'unsubscribe', topic: 'sendgrid:group:7' }],
      }),
    );
    // Opted in to that very topic: the removal is still to come, no drift.
    const own = record({ topics: { 'sendgrid:group:7': topic('subscribed') } });
    expect(planSync(own, pushed, groups)).toStrictEqual([
      { op: 'unsuppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ]);
    expect(compareAddress(EMAIL, own, pushed, [group7], groups)).toStrictEqual(empty);
  });
});
