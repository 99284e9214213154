/**
 * `ratchet doctor [--json]`: one pass/warn/fail line per check of the deployment (or the local stack),
 * each with its fix. Exit 1 on any fail. Checks: the tables answer; inbox TTL; point-in-time recovery
 * and deletion protection on the suppression table; every provider's credentials parse (or are
 * deliberately empty); the sync variables parse as `npm start` and the worker parse them
 * (doctor-sync.ts: a SYNC_QUEUE_URL that is no queue URL fails, worded as they word it); the queue, its
 * DLQ and the SES dead-letter queue are empty, and the oldest message in each is younger than the
 * queue-age alarm's threshold (doctor-queues.ts); on AWS, the SES topic's HTTPS subscription is
 * confirmed and the alarm topic has a confirmed subscriber. Demo credentials warn. The checks are a list with one runner (`runChecks`), so a target that does not
 * answer is reported once, with its fix, and the checks that need it are skipped.
 */
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SNSClient } from '@aws-sdk/client-sns';
import { Command } from 'commander';
import { DeploymentProbe } from '../../../lambdas/adapters/deployment-probe.js';
import { CloudWatchQueueAge, FauxqsQueueAge } from '../../../lambdas/adapters/queue-age.js';
import { ALARMS } from '../../definitions.js';
import type { Context } from '../context.js';
import type { Run } from '../program.js';
import { rootCause, type Target, TargetError } from '../target.js';
import {
  alarmCheck,
  credentialChecks,
  PROTECTION,
  protectionCheck,
  subscriptionCheck,
  tablesCheck,
  ttlCheck,
} from './doctor-checks.js';
import { queueChecks } from './doctor-queues.js';
import { REPUTATION_CHECK, reputationCheck } from './doctor-reputation.js';
import { SYNC_SETTINGS_CHECK, SYNC_SETTINGS_FIX, syncSettingsCheck } from './doctor-sync.js';

export interface CheckResult {
  check: string;
  status: 'pass' | 'warn' | 'fail' | 'skip';
  detail: string;
  fix?: string;
  /** Queue-age checks: the oldest message's age, and the alarm threshold it was compared with. */
  ageSeconds?: number;
  thresholdSeconds?: number;
}

export function doctorCommand(ctx: Context, run: Run): Command {
  return new Command('doctor')
    .description(
      'check the deployment (or the local stack): one pass/warn/fail line per check, with the fix; exit 1 on any fail',
    )
    .option('--json', 'the checks as JSON')
    .action(
      run(async (options: { json?: boolean }) => {
        const results = await diagnose(ctx);
        if (options.json) ctx.io.out(JSON.stringify(results, null, 2));
        else
          for (const r of results)
            ctx.io.out(
              `${r.status.toUpperCase().padEnd(4)}  ${r.check}: ${r.detail}${r.fix ? ` (fix: ${r.fix})` : ''}`,
            );
        return results.some((r) => r.status === 'fail') ? 1 : 0;
      }),
    );
}

/**
 * One check of the list: `needs` names what must not have failed before it runs (`reach`: the target
 * answered at all). A check that throws fails with its `fix`; a failure to reach the target is reported
 * once, by the first check that met it, and every check that needs the target is skipped.
 */
export interface DoctorCheck {
  name: string;
  fix: string;
  needs?: ReadonlyArray<'reach' | string>;
  run(): Promise<CheckResult | CheckResult[]>;
}

export async function runChecks(checks: readonly DoctorCheck[], target: Target): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  const failed = new Map<string, string>();
  for (const check of checks) {
    const blocker = check.needs?.find((n) => failed.has(n));
    if (blocker) {
      failed.set(check.name, failed.get(blocker)!);
      results.push({ check: check.name, status: 'skip', detail: `skipped: ${failed.get(blocker)}` });
      continue;
    }
    try {
      const outcome = await check.run();
      const list = Array.isArray(outcome) ? outcome : [outcome];
      results.push(...list);
      if (list.some((r) => r.status === 'fail')) failed.set(check.name, `${check.name} failed`);
    } catch (error) {
      const unreachable = cannotReach(error);
      results.push({
        check: check.name,
        status: 'fail',
        detail: rootCause(error).split('\n')[0]!,
        fix: unreachable ? target.hint : check.fix,
      });
      failed.set(check.name, `${check.name} failed`);
      if (unreachable) failed.set('reach', `${target.description} did not answer (see ${check.name})`);
    }
  }
  return results;
}

/** No answer at all (refused, unresolvable, no credentials): every other check of that target would fail the same way. */
function cannotReach(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  if (status !== undefined) return false;
  return /credential|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|socket|connect/i.test(
    `${error.name} ${rootCause(error)}`,
  );
}

export async function diagnose(ctx: Context): Promise<CheckResult[]> {
  let target: Target;
  try {
    target = ctx.target;
  } catch (error) {
    if (!(error instanceof TargetError)) throw error;
    return [{ check: 'target', status: 'fail', detail: error.message, fix: 'start it with `npm start`' }];
  }
  const aws = target.kind === 'aws';
  const dynamo = new DynamoDBClient({
    region: target.region,
    ...(target.dynamoEndpoint
      ? { endpoint: target.dynamoEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }
      : {}),
  });
  const sns = aws ? new SNSClient({ region: target.region }) : undefined;
  // Queues on AWS report their oldest message's age to CloudWatch only; an SQS endpoint may be fauxqs.
  const cloudwatch = target.sqsEndpoint ? undefined : new CloudWatchClient({ region: target.region });
  const queueAge = cloudwatch
    ? new CloudWatchQueueAge(cloudwatch, ALARMS.periodSeconds, ctx.now)
    : new FauxqsQueueAge(target.sqsEndpoint!, ctx.now);
  const probe = new DeploymentProbe({ dynamo, sqs: ctx.sqs, sns, queueAge });
  const checks: DoctorCheck[] = [
    {
      name: 'target',
      fix: target.hint,
      run: async () => ({ check: 'target', status: 'pass', detail: target.description }),
    },
    { name: 'tables', fix: target.hint, run: () => tablesCheck(target, probe) },
    {
      name: 'inbox TTL',
      fix: 'enable TTL on expiresAt (the stack does this)',
      needs: ['reach', 'tables'],
      run: () => ttlCheck(target, probe),
    },
    {
      name: PROTECTION,
      fix: 'enable point-in-time recovery and deletion protection',
      needs: ['reach', 'tables'],
      run: () => protectionCheck(target, probe),
    },
    { name: 'credentials', fix: 'correct the provider variables', run: () => credentialChecks(ctx, aws) },
    { name: SYNC_SETTINGS_CHECK, fix: SYNC_SETTINGS_FIX, run: async () => syncSettingsCheck(ctx) },
    {
      name: 'queues',
      fix: 'set QUEUE_URL and DLQ_URL from the stack outputs',
      needs: ['reach'],
      run: () => queueChecks(ctx, probe),
    },
    {
      name: REPUTATION_CHECK,
      fix: 'grant dynamodb:Query on the reputation table (REPUTATION_TABLE)',
      needs: ['reach'],
      run: () => reputationCheck(ctx, dynamo),
    },
    ...(aws
      ? [
          {
            name: 'SES subscription',
            fix: 'see docs/deploy.md "Checking the SES subscription": re-request the confirmation',
            needs: ['reach'],
            run: () => subscriptionCheck(ctx, probe),
          },
          {
            name: 'alarm subscribers',
            fix: 'subscribe an address to the AlarmTopicArn output and confirm it',
            needs: ['reach'],
            run: () => alarmCheck(ctx, probe),
          },
        ]
      : [
          {
            name: 'SNS subscriptions',
            fix: '',
            run: async (): Promise<CheckResult> => ({
              check: 'SNS subscriptions',
              status: 'skip',
              detail: 'no SNS locally',
            }),
          },
        ]),
  ];
  try {
    return await runChecks(checks, target);
  } finally {
    dynamo.destroy();
    sns?.destroy();
    cloudwatch?.destroy();
  }
}
