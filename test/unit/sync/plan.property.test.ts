/**
 * Properties of planning + recording, over random histories of events, manual actions and topic
 * changes interleaved with sync rounds against an in-memory provider:
 * - idempotent: planning again right after the answers are recorded yields nothing;
 * - faithful: after a round the provider holds the address globally iff the record is suppressed
 *   (or it was suppressed there and never reactivated by hand), and in a scope iff its topic is out;
 * - one-way: an `unsuppress` is only ever planned for a record with an audited manual reactivation.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  applyEvent,
  DEFAULT_RATCHET_POLICY,
  reactivate,
  type SuppressionRecord,
  suppressManually,
} from '../../../lambdas/core/suppression/index.js';
import { manuallyReactivated, type PlanContext, planSync, providerScopes } from '../../../lambdas/core/sync/plan.js';
import { type ProviderSyncState, recordOutcome } from '../../../lambdas/core/sync/state.js';
import { parseTopicAliases } from '../../../lambdas/core/topics.js';
import { MemorySyncTarget } from '../../support/memory-sync-target.js';
import { EMAIL, ev, T0 } from '../suppression/support.js';

const aliases = parseTopicAliases('sendgrid:group:7=newsletter,postmark:stream:broadcast=newsletter');
const policy = { ...DEFAULT_RATCHET_POLICY, topicAliases: aliases };
const TOPICS = ['sendgrid:group:7', 'postmark:stream:broadcast', 'sendgrid:group:9'];

type Step =
  | { t: 'event'; kind: 'complaint' | 'hard_bounce' | 'unsubscribe' | 'soft_bounce' | 'delivered'; at: number }
  | { t: 'topic'; kind: 'unsubscribe' | 'subscribe'; topic: string; at: number }
  | { t: 'reactivate'; at: number }
  | { t: 'manual'; at: number }
  | { t: 'sync' };

const at = fc.integer({ min: 0, max: 20 }).map((n) => T0 + n * 1000);
const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    t: fc.constant('event' as const),
    kind: fc.constantFrom('complaint', 'hard_bounce', 'unsubscribe', 'soft_bounce', 'delivered'),
    at,
  }),
  fc.record({
    t: fc.constant('topic' as const),
    kind: fc.constantFrom('unsubscribe', 'subscribe'),
    topic: fc.constantFrom(...TOPICS),
    at,
  }),
  fc.record({ t: fc.constant('reactivate' as const), at }),
  fc.record({ t: fc.constant('manual' as const), at }),
  fc.constant({ t: 'sync' as const }),
);

const contexts: Array<[string, PlanContext]> = [
  ['sendgrid', { aliases, handlesScope: (s) => s.startsWith('sendgrid:group:') }],
  ['postmark', { aliases, handlesScope: (s) => s.startsWith('postmark:stream:') }],
  ['ses', { aliases, handlesScope: () => false }],
];

function apply(record: SuppressionRecord | undefined, s: Step): SuppressionRecord | undefined {
  switch (s.t) {
    case 'event':
      if (record === undefined && s.kind === 'delivered') return record;
      return applyEvent(record, ev(s.kind, s.at), policy).record;
    case 'topic':
      return applyEvent(record, { ...ev(s.kind, s.at, { provider: 'sendgrid' }), topic: s.topic }, policy).record;
    case 'reactivate':
      return record ? reactivate(record, { actor: 'ops', reason: 'r', at: s.at }, policy).record : record;
    case 'manual':
      return suppressManually(record, EMAIL, { actor: 'ops', reason: 'm', at: s.at }, policy).record;
    case 'sync':
      return record;
  }
}

async function syncRound(
  record: SuppressionRecord | undefined,
  pushed: ProviderSyncState | undefined,
  context: PlanContext,
  target: MemorySyncTarget,
) {
  let state = pushed;
  for (const operation of planSync(record, state, context)) {
    if (operation.op === 'unsuppress') expect(record !== undefined && manuallyReactivated(record)).toBe(true);
    state = recordOutcome(state, operation, await target.apply(operation), 0, record?.reactivatedAt);
  }
  return state;
}

describe('planSync properties', () => {
  it.each(contexts)('%s: idempotent, faithful and one-way over random histories', async (provider, context) => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { maxLength: 25 }), async (steps) => {
        const target = new MemorySyncTarget(provider as 'ses', {
          globalLists: () => ['global'],
          scopePrefixes: provider === 'ses' ? [] : [`${provider}:`],
        });
        let record: SuppressionRecord | undefined;
        let pushed: ProviderSyncState | undefined;
        let everPushedGlobally = false;
        for (const s of [...steps, { t: 'sync' } as Step]) {
          record = apply(record, s);
          if (s.t !== 'sync') continue;
          pushed = await syncRound(record, pushed, context, target);
          expect(planSync(record, pushed, context)).toEqual([]);
          if (record?.status === 'suppressed') everPushedGlobally = true;
          const held = target.has('global', EMAIL);
          if (record?.status === 'suppressed') expect(held).toBe(true);
          else expect(held).toBe(everPushedGlobally && !(record !== undefined && manuallyReactivated(record)));
          if (!held) everPushedGlobally = false;
          for (const [topic, state] of Object.entries(record?.topics ?? {})) {
            for (const scope of providerScopes(topic, context))
              expect(target.has(scope, EMAIL)).toBe(state.status === 'unsubscribed');
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
