/**
 * compareAddress: the drift `sync reconcile` reports for one address at one provider, from the record,
 * what Ratchet pushed there (the `sync` map) and the provider's list entries. Exact results: each case
 * names every group of the Drift, so a drift that appears in the wrong group fails.
 */
import { describe, expect, it } from 'vitest';
import type { SuppressionRecord } from '../../../lambdas/core/suppression/record.js';
import type { PlanContext } from '../../../lambdas/core/sync/plan.js';
import { compareAddress, evidenceKind } from '../../../lambdas/core/sync/reconcile.js';
import type { ProviderSyncState } from '../../../lambdas/core/sync/state.js';
import {
  drift,
  EMAIL,
  empty,
  entry,
  groups,
  noScopes,
  pushedTo,
  record,
  suppressed,
  T,
  topic,
} from './support/reconcile-fixtures.js';

describe('compareAddress: missingAtProvider (global)', () => {
  it('suppressed, never pushed, the provider lists nothing: missing from `global`, pushed with the record reason', () => {
    expect(compareAddress(EMAIL, suppressed(), undefined, [], noScopes)).toStrictEqual(
      drift({
        missingAtProvider: [{ email: EMAIL, list: 'global' }],
        push: [{ op: 'suppress', email: EMAIL, reason: 'complaint' }],
      }),
    );
  });

  it('suppressed, never pushed, and the provider holds it on any global list: no drift', () => {
    expect(compareAddress(EMAIL, suppressed(), undefined, [entry('bounces')], noScopes)).toStrictEqual(empty);
  });

  it('pushed with an empty list set counts as never pushed', () => {
    expect(compareAddress(EMAIL, suppressed(), pushedTo([]), [], noScopes).missingAtProvider).toStrictEqual([
      { email: EMAIL, list: 'global' },
    ]);
    expect(compareAddress(EMAIL, suppressed(), pushedTo([]), [entry('spam')], noScopes)).toStrictEqual(empty);
  });

  it('expects exactly the lists Ratchet pushed to: each one lacking is missing, one suppress repairs all', () => {
    const got = compareAddress(
      EMAIL,
      suppressed({ reason: 'hard_bounce', reasons: ['hard_bounce'] }),
      pushedTo(['account', 'bounces', 'spam']),
      [entry('bounces'), entry('other')],
      noScopes,
    );
    expect(got).toStrictEqual(
      drift({
        missingAtProvider: [
          { email: EMAIL, list: 'account' },
          { email: EMAIL, list: 'spam' },
        ],
        push: [{ op: 'suppress', email: EMAIL, reason: 'hard_bounce' }],
      }),
    );
  });

  it('every pushed list held: no drift, and extra global lists at the provider are not drift either', () => {
    expect(
      compareAddress(EMAIL, suppressed(), pushedTo(['account']), [entry('account'), entry('bounces')], noScopes),
    ).toStrictEqual(empty);
  });

  it('a scope entry does not count as holding the global suppression', () => {
    const got = compareAddress(
      EMAIL,
      suppressed(),
      undefined,
      [entry('group:7', { scope: 'sendgrid:group:7' })],
      groups,
    );
    expect(got.missingAtProvider).toStrictEqual([{ email: EMAIL, list: 'global' }]);
    expect(got.push).toStrictEqual([{ op: 'suppress', email: EMAIL, reason: 'complaint' }]);
  });

  it('an informational entry (a SendGrid block) neither holds the suppression nor is drift', () => {
    const block = entry('blocks', { reason: '550 mailbox busy', date: T, informational: true });
    expect(compareAddress(EMAIL, suppressed(), undefined, [block], noScopes)).toStrictEqual(
      drift({
        missingAtProvider: [{ email: EMAIL, list: 'global' }],
        informational: [{ email: EMAIL, list: 'blocks', reason: '550 mailbox busy', date: T }],
        push: [{ op: 'suppress', email: EMAIL, reason: 'complaint' }],
      }),
    );
  });
});

describe('compareAddress: missingInRatchet (global)', () => {
  it('not suppressed in Ratchet: every global entry is missing, imported with the kind its words say', () => {
    const got = compareAddress(
      EMAIL,
      record(),
      undefined,
      [entry('bounces', { reason: 'Hard Bounce', date: T }), entry('global_unsubscribes')],
      noScopes,
    );
    expect(got).toStrictEqual(
      drift({
        missingInRatchet: [
          { email: EMAIL, list: 'bounces', reason: 'Hard Bounce', date: T },
          { email: EMAIL, list: 'global_unsubscribes' },
        ],
        imports: [
          { entry: { email: EMAIL, list: 'bounces', reason: 'Hard Bounce', date: T }, kind: 'hard_bounce' },
          { entry: { email: EMAIL, list: 'global_unsubscribes' }, kind: 'unsubscribe' },
        ],
      }),
    );
  });

  it('no record at all: the same', () => {
    expect(compareAddress(EMAIL, undefined, undefined, [entry('spam')], groups)).toStrictEqual(
      drift({
        missingInRatchet: [{ email: EMAIL, list: 'spam' }],
        imports: [{ entry: { email: EMAIL, list: 'spam' }, kind: 'complaint' }],
      }),
    );
  });

  it('no record at all, a scope entry: imported as a topic opt-out', () => {
    const got = compareAddress(EMAIL, undefined, undefined, [entry('group:7', { scope: 'sendgrid:group:7' })], groups);
    expect(got.imports).toStrictEqual([
      { entry: { email: EMAIL, list: 'group:7' }, kind: 'unsubscribe', topic: 'sendgrid:group:7' },
    ]);
  });

  it('a record whose topics map is absent is read as no topics', () => {
    const bare = record();
    delete (bare as Partial<SuppressionRecord>).topics;
    expect(compareAddress(EMAIL, bare, undefined, [], groups)).toStrictEqual(empty);
  });

  it('stored state from older writes (no lists, no refused, no topics map) is read as empty, not as an error', () => {
    const legacy = { at: T } as ProviderSyncState;
    expect(compareAddress(EMAIL, suppressed(), legacy, [], noScopes).missingAtProvider).toStrictEqual([
      { email: EMAIL, list: 'global' },
    ]);
    const bare = record();
    delete (bare as Partial<SuppressionRecord>).topics;
    const got = compareAddress(
      EMAIL,
      bare,
      { at: T, lists: [] },
      [entry('bounces'), entry('group:7', { scope: 'sendgrid:group:7', date: T })],
      groups,
    );
    expect(got.missingInRatchet).toStrictEqual([
      { email: EMAIL, list: 'bounces' },
      { email: EMAIL, list: 'group:7', date: T },
    ]);
    expect(got.imports.map((i) => [i.kind, i.topic])).toStrictEqual([
      ['hard_bounce', undefined],
      ['unsubscribe', 'sendgrid:group:7'],
    ]);
  });

  it('a suppressed status without a reason, or a reason without the status, is not a suppression', () => {
    const noReason = record({ status: 'suppressed' });
    const noStatus = record({ reason: 'complaint' });
    for (const r of [noReason, noStatus])
      expect(compareAddress(EMAIL, r, undefined, [entry('spam')], noScopes)).toStrictEqual(
        drift({
          missingInRatchet: [{ email: EMAIL, list: 'spam' }],
          imports: [{ entry: { email: EMAIL, list: 'spam' }, kind: 'complaint' }],
        }),
      );
    expect(compareAddress(EMAIL, noReason, undefined, [], noScopes)).toStrictEqual(empty);
  });

  it('a list whose removal the provider refused is reported as refused, not as drift; other lists still are', () => {
    const state = pushedTo([], { refused: [{ list: 'spam', why: 'SpamComplaint kept' }] });
    delete state.reason;
    expect(compareAddress(EMAIL, record(), state, [entry('spam'), entry('bounces')], noScopes)).toStrictEqual(
      drift({
        refused: [{ email: EMAIL, list: 'spam', why: 'SpamComplaint kept' }],
        missingInRatchet: [{ email: EMAIL, list: 'bounces' }],
        imports: [{ entry: { email: EMAIL, list: 'bounces' }, kind: 'hard_bounce' }],
      }),
    );
  });

  it('an entry dated at or before a manual reactivation is Ratchet’s decision; a later or undated one is drift', () => {
    const reactivated = record({ reactivatedAt: T });
    const got = compareAddress(
      EMAIL,
      reactivated,
      undefined,
      [entry('a', { date: T - 1 }), entry('b', { date: T }), entry('c', { date: T + 1 }), entry('d')],
      noScopes,
    );
    expect(got.missingInRatchet).toStrictEqual([
      { email: EMAIL, list: 'c', date: T + 1 },
      { email: EMAIL, list: 'd' },
    ]);
    expect(got.imports.map((i) => [i.entry.list, i.kind])).toStrictEqual([
      ['c', 'manual'],
      ['d', 'manual'],
    ]);
    // Never reactivated: a dated entry is drift whatever its date.
    expect(
      compareAddress(EMAIL, record(), undefined, [entry('a', { date: 0 })], noScopes).missingInRatchet,
    ).toHaveLength(1);
  });

  it('reactivated, and the list is one Ratchet pushed to: the removal still to come is no drift, whatever the date', () => {
    const reactivated = record({ reactivatedAt: T });
    const pending = pushedTo(['global_unsubscribes']);
    const entries = [entry('global_unsubscribes'), entry('bounces', { date: T + 1 })];
    expect(compareAddress(EMAIL, reactivated, pending, entries, noScopes).missingInRatchet).toStrictEqual([
      { email: EMAIL, list: 'bounces', date: T + 1 },
    ]);
    // Once the removal is recorded (no reason pushed), an entry there is drift again.
    const removed = pushedTo(['global_unsubscribes']);
    delete removed.reason;
    expect(compareAddress(EMAIL, reactivated, removed, [entry('global_unsubscribes')], noScopes).imports).toHaveLength(
      1,
    );
  });

  it('informational entries are listed whatever the record says, in order, never imported', () => {
    const got = compareAddress(
      EMAIL,
      record(),
      undefined,
      [entry('blocks', { informational: true }), entry('blocks', { informational: true, scope: 'sendgrid:group:7' })],
      groups,
    );
    expect(got).toStrictEqual(
      drift({
        informational: [
          { email: EMAIL, list: 'blocks' },
          { email: EMAIL, list: 'blocks' },
        ],
      }),
    );
  });
});

describe('compareAddress: topic scopes', () => {
  it('a topic opted out in a scope the provider holds, and the provider lacks it: missing, pushed as that scope only', () => {
    const r = suppressed({ topics: { 'sendgrid:group:7': topic('unsubscribed') } });
    expect(compareAddress(EMAIL, r, pushedTo(['global']), [entry('global')], groups)).toStrictEqual(
      drift({
        missingAtProvider: [{ email: EMAIL, list: 'sendgrid:group:7' }],
        push: [{ op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' }],
      }),
    );
  });

  it('held in the scope: no drift; a subscribed topic, or a scope the provider cannot hold: nothing expected', () => {
    const held = record({ topics: { 'sendgrid:group:7': topic('unsubscribed') } });
    expect(
      compareAddress(EMAIL, held, undefined, [entry('group:7', { scope: 'sendgrid:group:7' })], groups),
    ).toStrictEqual(empty);
    const optedIn = record({ topics: { 'sendgrid:group:8': topic('subscribed') } });
    expect(compareAddress(EMAIL, optedIn, undefined, [], groups)).toStrictEqual(empty);
    const elsewhere = record({ topics: { 'postmark:stream:news': topic('unsubscribed') } });
    expect(compareAddress(EMAIL, elsewhere, undefined, [], groups)).toStrictEqual(empty);
  });

  it('a scope entry Ratchet has no opt-out for is imported as a topic opt-out, never as a global suppression', () => {
    const scoped = entry('group:9', { scope: 'sendgrid:group:9', reason: 'complaint', date: T });
    expect(compareAddress(EMAIL, record(), undefined, [scoped], groups)).toStrictEqual(
      drift({
        missingInRatchet: [{ email: EMAIL, list: 'group:9', reason: 'complaint', date: T }],
        imports: [
          {
            entry: { email: EMAIL, list: 'group:9', reason: 'complaint', date: T },
            kind: 'unsubscribe',
            topic: 'sendgrid:group:9',
          },
        ],
      }),
    );
    // Suppressed globally: still a topic import, beside the global comparison.
    const got = compareAddress(EMAIL, suppressed(), undefined, [entry('global'), scoped], groups);
    expect(got.missingAtProvider).toStrictEqual([]);
    expect(got.imports.map((i) => [i.kind, i.topic])).toStrictEqual([['unsubscribe', 'sendgrid:group:9']]);
  });

  it('a scope entry dated at or before the topic’s opt-in is Ratchet’s decision; a later one is drift', () => {
    const optedIn = record({ topics: { 'sendgrid:group:7': topic('subscribed', T) } });
    const at = (date?: number) =>
      compareAddress(EMAIL, optedIn, undefined, [entry('group:7', { scope: 'sendgrid:group:7', date })], groups)
        .missingInRatchet.length;
    expect([at(T - 1), at(T), at(T + 1), at(undefined)]).toStrictEqual([0, 0, 1, 1]);
  });

  it('opted in again where Ratchet suppressed it: the removal still to come is no drift, dated or not', () => {
    const optedIn = record({ topics: { newsletter: topic('subscribed', T) } });
    const aliased: PlanContext = { ...groups, aliases: new Map([['sendgrid:group:7', 'newsletter']]) };
    const group7 = entry('group:7', { scope: 'sendgrid:group:7' });
    const pending = pushedTo([], { scopes: { 'sendgrid:group:7': ['group:7'] } });
    delete pending.reason;
    expect(compareAddress(EMAIL, optedIn, pending, [group7], aliased)).toStrictEqual(empty);
    expect(compareAddress(EMAIL, optedIn, pending, [{ ...group7, date: T + 1 }], aliased)).toStrictEqual(empty);
    // Not a scope Ratchet suppressed it in: an undated entry is still a new opt-out.
    expect(compareAddress(EMAIL, optedIn, pushedTo([]), [group7], aliased).imports).toStrictEqual([
      { entry: { email: EMAIL, list: 'group:7' }, kind: 'unsubscribe', topic: 'sendgrid:group:7' },
    ]);
    // A removal the provider refused for good: reported, never re-imported as an opt-out.
    const refused = pushedTo([], { refused: [{ list: 'group:7', why: 'kept' }] });
    expect(compareAddress(EMAIL, optedIn, refused, [group7], aliased)).toStrictEqual(
      drift({ refused: [{ email: EMAIL, list: 'group:7', why: 'kept' }] }),
    );
  });

  it('a scope that is no topic name (a Mailgun tag with a space) is informational: never drift, never imported', () => {
    const tagged = entry('unsubscribes@mg.example.com', { scope: 'mailgun:tag:Weekly digest', reason: 'unsubscribe' });
    const named = entry('unsubscribes@mg.example.com', { scope: 'mailgun:tag:weekly', reason: 'unsubscribe' });
    expect(compareAddress(EMAIL, record(), undefined, [tagged, named], noScopes)).toStrictEqual(
      drift({
        informational: [{ email: EMAIL, list: 'unsubscribes@mg.example.com', reason: 'unsubscribe' }],
        missingInRatchet: [{ email: EMAIL, list: 'unsubscribes@mg.example.com', reason: 'unsubscribe' }],
        imports: [
          {
            entry: { email: EMAIL, list: 'unsubscribes@mg.example.com', reason: 'unsubscribe' },
            kind: 'unsubscribe',
            topic: 'mailgun:tag:weekly',
          },
        ],
      }),
    );
  });

  it('aliases: the provider’s canonical scope stands for the stored topic, both ways', () => {
    const aliased: PlanContext = { ...groups, aliases: new Map([['sendgrid:group:7', 'newsletter']]) };
    const r = record({ topics: { newsletter: topic('unsubscribed') } });
    expect(compareAddress(EMAIL, r, undefined, [], aliased)).toStrictEqual(
      drift({
        missingAtProvider: [{ email: EMAIL, list: 'sendgrid:group:7' }],
        push: [{ op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' }],
      }),
    );
    expect(
      compareAddress(EMAIL, r, undefined, [entry('group:7', { scope: 'sendgrid:group:7' })], aliased),
    ).toStrictEqual(empty);
    // Opted in under the alias, dated after the entry: not drift either.
    const optedIn = record({ topics: { newsletter: topic('subscribed', T) } });
    expect(
      compareAddress(EMAIL, optedIn, undefined, [entry('group:7', { scope: 'sendgrid:group:7', date: T })], aliased),
    ).toStrictEqual(empty);
  });
});

describe('evidenceKind', () => {
  it.each([
    [{ list: 'complaints@mg.example.com' }, 'complaint'],
    [{ list: 'x', reason: 'SpamComplaint' }, 'complaint'],
    [{ list: 'x', reason: 'SPAM report' }, 'complaint'],
    [{ list: 'x', reason: 'Abuse' }, 'complaint'],
    [{ list: 'bounces', reason: 'Marked as spam' }, 'complaint'],
    [{ list: 'Bounces' }, 'hard_bounce'],
    [{ list: 'x', reason: 'HardBounce' }, 'hard_bounce'],
    [{ list: 'invalid_emails' }, 'hard_bounce'],
    [{ list: 'x', reason: 'Invalid address' }, 'hard_bounce'],
    [{ list: 'x', reason: 'bounce then unsubscribed' }, 'hard_bounce'],
    [{ list: 'global_unsubscribes' }, 'unsubscribe'],
    [{ list: 'x', reason: 'ManualSuppression' }, 'manual'],
    [{ list: 'account' }, 'manual'],
    [{ list: 'x', reason: 'UNSUBSCRIBED' }, 'unsubscribe'],
    // A Mailgun list is named with its sending domain: the domain's words are not the provider's reason.
    [{ list: 'unsubscribes@bounce.example.com', reason: 'unsubscribe' }, 'unsubscribe'],
    [{ list: 'bounces@spam-free.example.com', reason: '550 no such user' }, 'hard_bounce'],
    [{ list: 'unsubscribes@invalid-abuse.example', reason: 'unsubscribe' }, 'unsubscribe'],
  ] as const)('%o → %s', (input, kind) => {
    expect(evidenceKind(input)).toBe(kind);
  });
});
