/**
 * `ratchet doctor`'s reputation check: one WARN line per sender whose stored 24-hour state (what the
 * evaluator last judged) is not `ok` (`warn` or `breach`), with its rates and what to do; a PASS line when every sender is `ok`. A state
 * is about the mail, not about the deployment, so it never fails the doctor.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { storedStatuses } from '../../../lambdas/adapters/dynamodb-reputation-registry.js';
import type { StoredStatus } from '../../../lambdas/adapters/reputation-keys.js';
import { formatRate } from '../../../lambdas/core/reputation/index.js';
import type { Context } from '../context.js';
import type { CheckResult } from './doctor.js';

export const REPUTATION_CHECK = 'sender reputation';

/** `dynamo`: the doctor's own client for the target, so every check reads through one. */
export async function reputationCheck(ctx: Context, dynamo: DynamoDBClient): Promise<CheckResult[]> {
  let senders: StoredStatus[];
  try {
    senders = await storedStatuses(dynamo, ctx.target.reputationTable);
  } catch (error) {
    if ((error as { name?: string }).name !== 'ResourceNotFoundException') throw error;
    return [
      {
        check: REPUTATION_CHECK,
        status: 'warn',
        detail: `no reputation table ${ctx.target.reputationTable}: nothing is counted`,
        fix: 'deploy this version of the stack (or set REPUTATION_TABLE to its name)',
      },
    ];
  }
  const notOk = senders.filter((s) => s.state !== 'ok');
  if (notOk.length === 0)
    return [{ check: REPUTATION_CHECK, status: 'pass', detail: `${senders.length} senders judged, all ok (24 h)` }];
  return notOk.map((s) => ({
    check: REPUTATION_CHECK,
    status: 'warn',
    detail: `${s.sender} (${s.provider}) is ${s.state}: ${s.attempts} attempts, hard bounces ${formatRate(s.bounceRate)}, complaints ${formatRate(s.complaintRate)} over 24 h`,
    fix:
      s.state === 'breach'
        ? 'stop the campaign, clean the list (ratchet suppressions), see `ratchet reputation`; it stays breach until both rates fall under warn'
        : 'look at the list it mails (`ratchet reputation --sender <s>`) before it reaches breach',
  }));
}
