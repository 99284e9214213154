/**
 * Which canonical topic scopes each provider can hold (core/topics.ts names them), apart from the
 * targets: the sweeper's backfill plans with them (core/sync/backfill.ts) and has no provider keys, so
 * it builds no target. The targets' `handlesScope` answers from here too, so the two cannot disagree.
 */
import type { PlanContext } from '../../core/sync/plan.js';
import type { SyncProviderName } from '../../core/sync/target.js';
import type { TopicAliases } from '../../core/topics.js';

/** A SendGrid unsubscribe group: `sendgrid:group:<asm_group_id>`. */
export const GROUP_SCOPE = /^sendgrid:group:(\d+)$/;
/** A Postmark message stream: `postmark:stream:<MessageStream>`. */
export const STREAM_SCOPE = /^postmark:stream:(.+)$/;

/** SES, Mailgun and Resend keep one global list each here: no topic scope is pushed to them. */
const SCOPES: Readonly<Record<SyncProviderName, RegExp | undefined>> = {
  ses: undefined,
  sendgrid: GROUP_SCOPE,
  postmark: STREAM_SCOPE,
  mailgun: undefined,
  resend: undefined,
};

export function providerHandlesScope(provider: SyncProviderName, scope: string): boolean {
  return SCOPES[provider]?.test(scope) ?? false;
}

/** The plan context of one provider, as the worker builds it from its target. */
export function providerPlan(provider: SyncProviderName, aliases: TopicAliases): PlanContext {
  return { aliases, handlesScope: (scope) => providerHandlesScope(provider, scope) };
}
