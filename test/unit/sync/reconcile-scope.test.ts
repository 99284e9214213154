/**
 * compareAddress by scope, for a list that is a topic's scope and also receives global suppressions
 * (POSTMARK_STREAMS=outbound,broadcast with TOPIC_ALIASES=...,postmark:stream:broadcast=newsletter): an
 * entry there is explained by the topic's opt-out or by a global suppression, and an unexplained one is
 * imported as the topic's opt-out, never as a global suppression. Exact results, as in reconcile.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { PlanContext } from '../../../lambdas/core/sync/plan.js';
import { compareAddress } from '../../../lambdas/core/sync/reconcile.js';
import type { ProviderListEntry } from '../../../lambdas/core/sync/target.js';
import { drift, EMAIL, empty, entry, pushedTo, record, suppressed, T, topic } from './support/reconcile-fixtures.js';

describe('compareAddress: a topic list that also receives global suppressions', () => {
  // POSTMARK_STREAMS=outbound,broadcast and TOPIC_ALIASES=...,postmark:stream:broadcast=newsletter.
  const postmark: PlanContext = {
    aliases: new Map([
      ['sendgrid:group:7', 'newsletter'],
      ['postmark:stream:broadcast', 'newsletter'],
    ]),
    handlesScope: (s) => s.startsWith('postmark:stream:'),
  };
  const broadcast = (over: Partial<ProviderListEntry> = {}) =>
    entry('stream:broadcast', { scope: 'postmark:stream:broadcast', globalList: true, ...over });
  const leftNewsletter = () => record({ topics: { newsletter: topic('unsubscribed') } });

  it('an address that only left the topic: explained by the opt-out, drift in neither direction', () => {
    expect(compareAddress(EMAIL, leftNewsletter(), undefined, [broadcast()], postmark)).toStrictEqual(empty);
  });

  it('unexplained: imported as the topic’s opt-out, never as a global suppression', () => {
    const date = T + 5;
    const got = compareAddress(
      EMAIL,
      record(),
      undefined,
      [broadcast({ reason: 'ManualSuppression', date })],
      postmark,
    );
    const shown = { email: EMAIL, list: 'stream:broadcast', reason: 'ManualSuppression', date };
    expect(got).toStrictEqual(
      drift({
        missingInRatchet: [shown],
        imports: [{ entry: shown, kind: 'unsubscribe', topic: 'postmark:stream:broadcast' }],
      }),
    );
    // No record at all: the same.
    expect(compareAddress(EMAIL, undefined, undefined, [broadcast()], postmark).imports).toStrictEqual([
      { entry: { email: EMAIL, list: 'stream:broadcast' }, kind: 'unsubscribe', topic: 'postmark:stream:broadcast' },
    ]);
  });

  it('a global suppression explains it too, and it holds the global suppression at that stream', () => {
    const pushed = pushedTo(['stream:outbound', 'stream:broadcast']);
    expect(
      compareAddress(EMAIL, suppressed(), pushed, [entry('stream:outbound'), broadcast()], postmark),
    ).toStrictEqual(empty);
    expect(compareAddress(EMAIL, suppressed(), pushed, [broadcast()], postmark)).toStrictEqual(
      drift({
        missingAtProvider: [{ email: EMAIL, list: 'stream:outbound' }],
        push: [{ op: 'suppress', email: EMAIL, reason: 'complaint' }],
      }),
    );
    // Never pushed: held on it counts as held, like any global list.
    expect(compareAddress(EMAIL, suppressed(), undefined, [broadcast()], postmark)).toStrictEqual(empty);
  });

  it('suppressed and left the topic: the opt-out is expected in the scope, the global one in every stream', () => {
    const both = suppressed({ topics: { newsletter: topic('unsubscribed') } });
    const pushed = pushedTo(['stream:outbound', 'stream:broadcast']);
    expect(compareAddress(EMAIL, both, pushed, [entry('stream:outbound'), broadcast()], postmark)).toStrictEqual(empty);
    expect(compareAddress(EMAIL, both, pushed, [entry('stream:outbound')], postmark)).toStrictEqual(
      drift({
        missingAtProvider: [
          { email: EMAIL, list: 'stream:broadcast' },
          { email: EMAIL, list: 'postmark:stream:broadcast' },
        ],
        push: [
          { op: 'suppress', email: EMAIL, reason: 'complaint' },
          { op: 'suppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' },
        ],
      }),
    );
  });

  it('after a manual reactivation: an older entry is Ratchet’s decision, a refused removal is reported, a later one is a topic import', () => {
    const reactivated = record({ reactivatedAt: T });
    expect(compareAddress(EMAIL, reactivated, undefined, [broadcast({ date: T })], postmark)).toStrictEqual(empty);
    const refusedState = pushedTo([], { refused: [{ list: 'stream:broadcast', why: 'SpamComplaint' }] });
    expect(compareAddress(EMAIL, reactivated, refusedState, [broadcast({ date: T + 1 })], postmark)).toStrictEqual(
      drift({ refused: [{ email: EMAIL, list: 'stream:broadcast', why: 'SpamComplaint' }] }),
    );
    const later = compareAddress(EMAIL, reactivated, undefined, [broadcast({ date: T + 1 })], postmark);
    expect(later.imports.map((i) => [i.kind, i.topic])).toStrictEqual([['unsubscribe', 'postmark:stream:broadcast']]);
  });

  it('a scope entry without `globalList` is still never explained by a global suppression', () => {
    const got = compareAddress(
      EMAIL,
      suppressed(),
      pushedTo(['stream:outbound']),
      [entry('stream:outbound'), broadcast({ globalList: undefined })],
      postmark,
    );
    expect(got.imports.map((i) => [i.kind, i.topic])).toStrictEqual([['unsubscribe', 'postmark:stream:broadcast']]);
  });
});
