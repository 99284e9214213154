/**
 * `ratchet doctor`'s queue checks: the consumer queue, its DLQ and the SES (SNS subscription) dead-letter
 * queue are empty, and the oldest message in each is younger than the queue-age alarm's threshold. The
 * age is read without receiving anything (see lambdas/adapters/queue-age.ts).
 */
import type { DeploymentProbe } from '../../../lambdas/adapters/deployment-probe.js';
import { ALARMS, QUEUE, SES_DEAD_LETTERS } from '../../definitions.js';
import type { Context } from '../context.js';
import { rootCause } from '../target.js';
import type { CheckResult } from './doctor.js';
import { SES_DEAD_LETTER_QUEUE_DEFAULT } from './ses.js';

/** The IAM action the age checks need on AWS, named in the fix when it is missing. */
export const AGE_METRIC_ACTION = 'cloudwatch:GetMetricData';

export async function queueChecks(ctx: Context, probe: DeploymentProbe): Promise<CheckResult[]> {
  const { target } = ctx;
  const results: CheckResult[] = [];
  if (target.queueUrl) {
    const main = await probe.queueDepth(target.queueUrl);
    results.push(
      main.visible === 0
        ? { check: 'queue', status: 'pass', detail: `empty (${main.inFlight} in flight)` }
        : {
            check: 'queue',
            status: 'warn',
            detail: `${main.visible} waiting, ${main.inFlight} in flight`,
            fix: 'check that the consumer is running and not throttled',
          },
    );
    results.push(
      await ageCheck(
        probe,
        'queue age',
        main.url,
        'the consumer is failing or not keeping up: check its errors and throttles (dashboard, logs)',
      ),
    );
  } else
    results.push({
      check: 'queue',
      status: 'warn',
      detail: 'QUEUE_URL not set: not checked',
      fix: 'set QUEUE_URL from the stack outputs',
    });
  if (target.deadLetterUrl) {
    const dlq = await probe.queueDepth(target.deadLetterUrl);
    results.push(
      ...(await deadLetterChecks(probe, 'dead-letter queue', dlq, {
        holds: 'events the consumer could not apply',
        fix: '`ratchet dlq list`, fix the cause, then `ratchet dlq redrive`',
        drops: `the DLQ drops events after ${QUEUE.deadLetterRetentionDays} days`,
      })),
    );
  } else
    results.push({
      check: 'dead-letter queue',
      status: 'warn',
      detail: 'DLQ_URL not set: not checked',
      fix: 'set DLQ_URL from the stack outputs',
    });
  let ses: QueueDepth;
  try {
    ses = await probe.queueDepth(target.sesDeadLetterQueue ?? SES_DEAD_LETTER_QUEUE_DEFAULT);
  } catch (error) {
    results.push({
      check: 'SES dead-letter queue',
      status: 'warn',
      detail: `not found (${rootCause(error)})`,
      fix: 'set SES_DEAD_LETTER_QUEUE from the stack outputs',
    });
    return results;
  }
  results.push(
    ...(await deadLetterChecks(probe, 'SES dead-letter queue', ses, {
      holds: 'SNS messages SNS gave up on',
      fix: '`ratchet ses redrive`',
      drops: `the queue drops them after ${SES_DEAD_LETTERS.retentionDays} days`,
    })),
  );
  return results;
}

type QueueDepth = Awaited<ReturnType<DeploymentProbe['queueDepth']>>;

/**
 * A dead-letter queue fails while it holds anything, waiting or in flight: each message is an event not
 * applied. Its age check says how long is left before the queue drops the oldest.
 */
async function deadLetterChecks(
  probe: DeploymentProbe,
  check: string,
  depth: QueueDepth,
  about: { holds: string; fix: string; drops: string },
): Promise<CheckResult[]> {
  const held = depth.visible + depth.inFlight;
  return [
    held === 0
      ? { check, status: 'pass', detail: 'empty' }
      : { check, status: 'fail', detail: `${held} ${about.holds}`, fix: about.fix },
    await ageCheck(probe, `${check} age`, depth.url, `${about.fix} (${about.drops})`),
  ];
}

/** Fail at or over the alarm's threshold (the alarm compares with >=); `ageSeconds` in `--json`. */
async function ageCheck(probe: DeploymentProbe, check: string, url: string, fix: string): Promise<CheckResult> {
  const thresholdSeconds = ALARMS.queueAgeSeconds;
  const limit = `alarm at ${duration(thresholdSeconds)}`;
  let age: Awaited<ReturnType<DeploymentProbe['oldestMessage']>>;
  try {
    age = await probe.oldestMessage(url);
  } catch (error) {
    if (isAccessDenied(error)) {
      return {
        check,
        status: 'warn',
        detail: `not checked: CloudWatch refused ${AGE_METRIC_ACTION}`,
        fix: `allow ${AGE_METRIC_ACTION} to the identity running doctor`,
        thresholdSeconds,
      };
    }
    return {
      check,
      status: 'warn',
      detail: `not checked: ${rootCause(error).split('\n')[0]}`,
      fix: 'run doctor again; if it persists, read ApproximateAgeOfOldestMessage on the dashboard',
      thresholdSeconds,
    };
  }
  if (age.kind === 'unmeasurable')
    return { check, status: 'skip', detail: `not measurable on this SQS endpoint (${age.why})`, thresholdSeconds };
  if (age.kind === 'idle') return { check, status: 'pass', detail: `no messages (${limit})`, thresholdSeconds };
  const detail = `oldest message ${duration(age.seconds)} old (${limit})`;
  return age.seconds >= thresholdSeconds
    ? { check, status: 'fail', detail, fix, ageSeconds: age.seconds, thresholdSeconds }
    : { check, status: 'pass', detail, ageSeconds: age.seconds, thresholdSeconds };
}

/** A missing IAM permission: the query protocol says `AccessDenied`, the JSON one `AccessDeniedException`. */
function isAccessDenied(error: unknown): boolean {
  return error instanceof Error && /^AccessDenied(Exception)?$/.test(error.name);
}

function duration(seconds: number): string {
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 2 * 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
}
