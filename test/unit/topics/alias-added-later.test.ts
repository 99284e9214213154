/**
 * TOPIC_ALIASES added after topic opt-outs exist. A record written before the alias keeps the opt-out under
 * its canonical name (`sendgrid:group:7`); once `sendgrid:group:7=newsletter` is set, that opt-out is read as
 * `newsletter`'s, beside any state `newsletter` holds itself, the latest change winning (an opt-out winning a
 * tie): the rule a topic's own evidence follows, so the state is what `newsletter` would hold had the alias
 * existed all along. The planner and reconcile read topics that way, so the alias's other scopes (Postmark
 * `broadcast`) get the earlier opt-outs, and the provider's group-7 entry stays explained. Records built by
 * the real ratchet, as plan.test.ts does.
 */
import { describe, expect, it } from 'vitest';
import { refusalReason } from '../../../lambdas/core/suppression/answer.js';
import { applyEvent, DEFAULT_RATCHET_POLICY, type SuppressionRecord } from '../../../lambdas/core/suppression/index.js';
import { type PlanContext, planSync } from '../../../lambdas/core/sync/plan.js';
import { compareAddress } from '../../../lambdas/core/sync/reconcile.js';
import { type ProviderSyncState, recordOutcome } from '../../../lambdas/core/sync/state.js';
import { NO_TOPIC_ALIASES, parseTopicAliases, topicsUnderAliases } from '../../../lambdas/core/topics.js';
import { EMAIL, ev, T0 } from '../suppression/support.js';

const aliases = parseTopicAliases('sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter');
const sendgrid: PlanContext = { aliases, handlesScope: (s) => s.startsWith('sendgrid:group:') };
const postmark: PlanContext = { aliases, handlesScope: (s) => s.startsWith('postmark:stream:') };

/** A topic change applied under `policyAliases` (what the consumer had when the event arrived). */
function topicEvent(
  kind: 'unsubscribe' | 'subscribe',
  topic: string,
  at: number,
  record: SuppressionRecord | undefined,
  policyAliases = NO_TOPIC_ALIASES,
): SuppressionRecord {
  const policy = { ...DEFAULT_RATCHET_POLICY, topicAliases: policyAliases };
  return applyEvent(record, { ...ev(kind, at, { provider: 'sendgrid' }), topic }, policy).record;
}
/** Left group 7 before any alias: stored under the canonical name. */
const leftBeforeAlias = (at = T0) => topicEvent('unsubscribe', 'sendgrid:group:7', at, undefined);
const pushedScope = (scope: string): ProviderSyncState =>
  recordOutcome(undefined, { op: 'suppressScope', email: EMAIL, scope }, { lists: [] }, T0);

describe('topicsUnderAliases', () => {
  const state = (status: 'subscribed' | 'unsubscribed', changedAt: number) => ({ status, changedAt });

  it('reads a topic stored under a canonical name as its alias, once one maps it', () => {
    expect(topicsUnderAliases({ 'sendgrid:group:7': state('unsubscribed', T0) }, aliases)).toEqual({
      newsletter: state('unsubscribed', T0),
    });
    expect(topicsUnderAliases({ 'sendgrid:group:7': state('unsubscribed', T0) }, NO_TOPIC_ALIASES)).toEqual({
      'sendgrid:group:7': state('unsubscribed', T0),
    });
    expect(topicsUnderAliases(undefined, aliases)).toEqual({});
  });

  it('beside the alias’s own state, the latest change wins; on equal times the opt-out', () => {
    const before = { 'sendgrid:group:7': state('unsubscribed', T0) };
    expect(topicsUnderAliases({ ...before, newsletter: state('subscribed', T0 + 1) }, aliases)).toEqual({
      newsletter: state('subscribed', T0 + 1),
    });
    expect(topicsUnderAliases({ ...before, newsletter: state('subscribed', T0 - 1) }, aliases)).toEqual({
      newsletter: state('unsubscribed', T0),
    });
    expect(topicsUnderAliases({ ...before, newsletter: state('subscribed', T0) }, aliases)).toEqual({
      newsletter: state('unsubscribed', T0),
    });
    expect(
      topicsUnderAliases(
        { 'sendgrid:group:7': state('subscribed', T0), 'postmark:stream:broadcast': state('unsubscribed', T0) },
        aliases,
      ),
    ).toEqual({ newsletter: state('unsubscribed', T0) });
  });

  it('a name that is itself an alias is read as stored, even where another entry maps it on', () => {
    const chained = parseTopicAliases('a=b,b=c');
    expect(topicsUnderAliases({ b: state('unsubscribed', T0) }, chained)).toEqual({ b: state('unsubscribed', T0) });
    expect(topicsUnderAliases({ a: state('unsubscribed', T0) }, chained)).toEqual({ b: state('unsubscribed', T0) });
  });
});

describe('the planner after an alias is added', () => {
  it("pushes an opt-out stored before the alias to the alias's other scopes (Postmark broadcast)", () => {
    const record = leftBeforeAlias();
    expect(Object.keys(record.topics)).toEqual(['sendgrid:group:7']);
    expect(planSync(record, undefined, postmark)).toEqual([
      { op: 'suppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' },
    ]);
    // SendGrid already holds it (pushed before the alias): nothing to do, and nothing removed.
    expect(planSync(record, pushedScope('sendgrid:group:7'), sendgrid)).toEqual([]);
    expect(planSync(record, undefined, sendgrid)).toEqual([
      { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ]);
  });

  it('an opt-in under the alias after it wins over the earlier opt-out, everywhere', () => {
    const record = topicEvent('subscribe', 'sendgrid:group:7', T0 + 1000, leftBeforeAlias(), aliases);
    expect(Object.keys(record.topics).sort()).toEqual(['newsletter', 'sendgrid:group:7']);
    expect(planSync(record, pushedScope('sendgrid:group:7'), sendgrid)).toEqual([
      { op: 'unsuppressScope', email: EMAIL, scope: 'sendgrid:group:7' },
    ]);
    expect(planSync(record, undefined, postmark)).toEqual([]);
  });
});

describe('reconcile after an alias is added', () => {
  it('the provider’s group-7 entry is explained by the opt-out stored before the alias, and broadcast lacks it', () => {
    const record = leftBeforeAlias();
    const group7 = { email: EMAIL, list: 'group:7', scope: 'sendgrid:group:7' };
    const atSendGrid = compareAddress(EMAIL, record, pushedScope('sendgrid:group:7'), [group7], sendgrid);
    expect(atSendGrid).toMatchObject({ missingInRatchet: [], missingAtProvider: [], imports: [], push: [] });
    const atPostmark = compareAddress(EMAIL, record, undefined, [], postmark);
    expect(atPostmark).toMatchObject({
      missingAtProvider: [{ email: EMAIL, list: 'postmark:stream:broadcast' }],
      push: [{ op: 'suppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' }],
    });
  });
});

describe('the answer to sending code after an alias is added', () => {
  it('an opt-out stored under a canonical name refuses the alias’s mail, until a later opt-in under the alias', () => {
    const record = leftBeforeAlias();
    expect(refusalReason(record, { topic: 'newsletter' }, aliases)).toBe('topic_unsubscribed');
    // Without the aliases (an older reader) only the stored name answers.
    expect(refusalReason(record, { topic: 'newsletter' })).toBeUndefined();
    expect(refusalReason(record, { topic: 'other' }, aliases)).toBeUndefined();
    // A canonical name asked for is its alias's question, whichever name holds the state.
    expect(refusalReason(record, { topic: 'postmark:stream:broadcast' }, aliases)).toBe('topic_unsubscribed');
    expect(refusalReason(record, { topic: 'sendgrid:group:7' }, aliases)).toBe('topic_unsubscribed');
    const back = topicEvent('subscribe', 'newsletter', T0 + 1000, record, aliases);
    expect(refusalReason(back, { topic: 'newsletter' }, aliases)).toBeUndefined();
  });
});
