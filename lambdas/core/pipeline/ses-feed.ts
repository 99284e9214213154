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
import type { EdgeResponse, WebhookEdge } from './edge.js';
import type { Counters, Log } from './ports.js';
import { SES_PROVIDER_NAME } from '../providers/ses/index.js';
import { snsRequestFromQueuedBody } from '../providers/ses/sns/envelope.js';

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

  /** Handles one batch; resolves with the SQS message ids to report as batch item failures. */
  async process(records: readonly FeedRecord[]): Promise<string[]> {
    const { edge, log, counters } = this.deps;
    if (records.length === 0) return [];
    try {
      const answers = await edge.receiveBatch(SES_PROVIDER_NAME, records.map((r) => snsRequestFromQueuedBody(r.body)));
      const failed: string[] = [];
      const letters: FeedDeadLetter[] = [];
      records.forEach((record, i) => {
        const outcome = feedOutcome(answers[i]!);
        if (outcome.action === 'retry') {
          failed.push(record.messageId);
          // Never the body: it holds addresses and a signature.
          log.warn('SES feed message failed; SQS will deliver it again', { messageId: record.messageId, status: outcome.status, code: outcome.code });
        } else if (outcome.action === 'dead-letter') {
          letters.push({ messageId: record.messageId, body: record.body, code: outcome.code });
        }
      });
      failed.push(...(await this.deadLetter(letters)));
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
        log.error('SES feed dead-letter move failed; SQS will deliver it again', { messageId: letter.messageId, code: letter.code, error: reason ?? 'entry failed' });
      } else {
        moved++;
        log.warn('SES feed message dead-lettered: it can never be admitted', { messageId: letter.messageId, code: letter.code });
      }
    }
    counters.count(SES_FEED_DEAD_LETTERED_METRIC, moved, SES_PROVIDER_NAME);
    return letters.filter((l) => unsent.has(l.messageId)).map((l) => l.messageId);
  }
}
