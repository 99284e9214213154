/**
 * The SES feed: the SES topic delivers to an SQS queue (raw message delivery off, so each body is the
 * signed SNS envelope), and this turns one SQS batch into per-message outcomes. Every envelope goes
 * through the edge exactly as `POST /webhooks/ses` would take it (signature, certificate URL gate,
 * topic allowlist, then enqueue and the conditional put): the queue policy is never trusted alone.
 *
 * What happens to a message follows from the edge's answer:
 * - 2xx (admitted, duplicate, ignored, a confirmed subscription): done, SQS deletes it;
 * - 4xx other than 429 (not authentic, a topic off the allowlist, not an SNS envelope, too large):
 *   no retry can ever admit it, so it moves to the SES dead-letter queue on its first receive, is
 *   counted, and is reported done; it is never applied. If the move itself fails, it is a failure;
 * - 5xx and 429 (DynamoDB, SQS, Secrets Manager, the certificate host): a batch item failure, so SQS
 *   delivers it again, and the queue's redrive policy moves it to the same dead-letter queue after
 *   its last receive.
 */

import { SES_PROVIDER_NAME } from '../providers/ses/index.js';
import { snsRequestFromQueuedBody } from '../providers/ses/sns/envelope.js';
import type { EdgeResponse, WebhookEdge } from './edge.js';
import type { Counters, Log } from './ports.js';

export const SES_FEED_DEAD_LETTERED_METRIC = 'SesFeedDeadLettered';

/** One SQS record: its SQS message id (what a batch item failure names) and its body. */
export interface FeedRecord {
  messageId: string;
  body: string;
}

export type FeedOutcome =
  | { action: 'delete' }
  | { action: 'dead-letter'; status: number; code: string }
  | { action: 'retry'; status: number; code: string };

/** What the edge's answer means for the message that carried it. Pure. */
export function feedOutcome(answer: EdgeResponse): FeedOutcome {
  const { status } = answer;
  if (status >= 200 && status < 300) return { action: 'delete' };
  const code = typeof answer.body.error === 'string' ? answer.body.error : `status_${status}`;
  // 429 is "later", never "never"; anything outside 4xx is ours to retry.
  if (status >= 400 && status < 500 && status !== 429) return { action: 'dead-letter', status, code };
  return { action: 'retry', status, code };
}

export interface FeedDeadLetter {
  messageId: string;
  body: string;
  /** The edge's error code, recorded on the dead-lettered message for the operator. */
  code: string;
}

export interface FeedDeadLetterQueue {
  /** Sends every letter; resolves with the message ids that were not sent (throwing means none was). */
  send(letters: readonly FeedDeadLetter[]): Promise<ReadonlySet<string>>;
}

export interface SesFeedDeps {
  edge: Pick<WebhookEdge, 'receiveBatch'>;
  deadLetters: FeedDeadLetterQueue;
  log: Log;
  /** The edge's counters: flushed here, once per batch. */
  counters: Counters;
}

export class SesFeed {
  constructor(private readonly deps: SesFeedDeps) {}

  /**
   * Handles one batch; resolves with the SQS message ids to report as batch item failures.
   *
   * Logging: one INFO line per batch (`SES feed batch`, its counts), and a line per message only for
   * a failure or a dead letter. A line per admitted envelope would be ten INFO lines a batch, most of
   * the feed's CloudWatch bill, telling the operator nothing the summary and the EventsAdmitted /
   * EventsDuplicate metrics do not; the per-envelope `webhook accepted` detail stays at DEBUG.
   */
  async process(records: readonly FeedRecord[]): Promise<string[]> {
    const { edge, log, counters } = this.deps;
    if (records.length === 0) return [];
    try {
      const answers = await edge.receiveBatch(
        SES_PROVIDER_NAME,
        records.map((r) => snsRequestFromQueuedBody(r.body)),
      );
      const failed: string[] = [];
      const letters: FeedDeadLetter[] = [];
      records.forEach((record, i) => {
        const outcome = feedOutcome(answers[i]!);
        if (outcome.action === 'retry') {
          failed.push(record.messageId);
          // Never the body: it holds addresses and a signature.
          log.warn('SES feed message failed; SQS will deliver it again', {
            messageId: record.messageId,
            status: outcome.status,
            code: outcome.code,
          });
        } else if (outcome.action === 'dead-letter') {
          letters.push({ messageId: record.messageId, body: record.body, code: outcome.code });
        }
      });
      const unmoved = await this.deadLetter(letters);
      failed.push(...unmoved);
      log.info('SES feed batch', {
        messages: records.length,
        ...batchCounts(answers),
        deadLettered: letters.length - unmoved.length,
        failed: failed.length,
      });
      return failed;
    } finally {
      counters.flush?.();
    }
  }

  /** Moves what can never be admitted; resolves with the ids whose move failed (SQS keeps those). */
  private async deadLetter(letters: readonly FeedDeadLetter[]): Promise<string[]> {
    if (letters.length === 0) return [];
    const { log, counters } = this.deps;
    let unsent: ReadonlySet<string>;
    let reason: string | undefined;
    try {
      unsent = await this.deps.deadLetters.send(letters);
    } catch (error) {
      unsent = new Set(letters.map((l) => l.messageId));
      reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    let moved = 0;
    for (const letter of letters) {
      if (unsent.has(letter.messageId)) {
        log.error('SES feed dead-letter move failed; SQS will deliver it again', {
          messageId: letter.messageId,
          code: letter.code,
          error: reason ?? 'entry failed',
        });
      } else {
        moved++;
        log.warn('SES feed message dead-lettered: it can never be admitted', {
          messageId: letter.messageId,
          code: letter.code,
        });
      }
    }
    counters.count(SES_FEED_DEAD_LETTERED_METRIC, moved, SES_PROVIDER_NAME);
    return letters.filter((l) => unsent.has(l.messageId)).map((l) => l.messageId);
  }
}

/**
 * A batch's event counts, summed from the answers of the messages that were taken (2xx; a failed or
 * dead-lettered message has none). An SES notification to several recipients is several events.
 * Why events were ignored is merged in when some were.
 */
export function batchCounts(answers: readonly EdgeResponse[]): {
  events: number;
  admitted: number;
  duplicates: number;
  ignored: number;
  ignoredReasons?: Record<string, number>;
} {
  const sum = { events: 0, admitted: 0, duplicates: 0, ignored: 0 };
  const reasons: Record<string, number> = {};
  const n = (v: unknown) => (typeof v === 'number' ? v : 0);
  for (const { body } of answers) {
    sum.events += n(body.received);
    sum.admitted += n(body.admitted);
    sum.duplicates += n(body.duplicates);
    sum.ignored += n(body.ignored);
    const why = body.ignoredReasons;
    if (why && typeof why === 'object')
      for (const [reason, count] of Object.entries(why)) reasons[reason] = (reasons[reason] ?? 0) + n(count);
  }
  return sum.ignored > 0 ? { ...sum, ignoredReasons: reasons } : sum;
}
