/**
 * Admission of verified events, for one request or for a batch of them (the SES feed hands the edge up
 * to 10 SNS envelopes at once). The order is the edge's losslessness argument, per row:
 *  1. encode every row (no I/O): an event that can never be stored is refused before anything is sent;
 *  2. send every actionable event of every request in one go (SendMessageBatch, 10 a call);
 *  3. only then the conditional puts, a bounded number in flight;
 *  4. each request gets its own answer: 2xx only when its send and all its puts succeeded.
 * A batch therefore costs what one request does (one send, one put per row), and a failure stays with
 * the request it belongs to: a failed put fails that request only; a failed send fails every request
 * that had something to send, none of which stored anything.
 */
import { ignoredReasons } from '../classification.js';
import { isWebhookError, type WebhookError } from '../errors.js';
import { isActionable, type NormalizedEvent } from '../event.js';
import { settleWithLimit } from './concurrency.js';
import type { Counters, EventQueue, InboxStore, Log, PreparedRow, QueuedEvent } from './ports.js';

export interface AdmissionDeps {
  inbox: InboxStore;
  queue: EventQueue;
  log: Log;
  counters: Counters;
  now: () => number;
  admitConcurrency: number;
  /**
   * The caller writes one summary line for the whole batch (the SES feed), so each request's
   * `webhook accepted` line is DEBUG: at 10 envelopes a batch, ten INFO lines would be most of what
   * the feed pays CloudWatch, and they say nothing the summary and the metrics do not. Failures keep
   * their own lines at WARN/ERROR whatever this says.
   */
  summarizedByCaller?: boolean;
}

export interface Answer {
  status: number;
  body: Record<string, unknown>;
}

/** How a request that failed (or was refused) is answered: the edge's own rejection, with its log and metric. */
export type Reject = (provider: string, error: unknown) => Answer;

/** One request's plan: its rows, or the answer it already has (a 5xx while encoding). */
interface Plan {
  events: readonly NormalizedEvent[];
  ignored: number;
  rows: PreparedRow[];
  /** Events of rows whose key an earlier row of the same request already has: answered as duplicates. */
  repeated: number;
  refused?: WebhookError;
  answer?: Answer;
}

/** Answers, in order, for each request's events (`eventLists[i]` is request i's). */
export async function admitAll(
  deps: AdmissionDeps,
  provider: string,
  eventLists: readonly (readonly NormalizedEvent[])[],
  reject: Reject,
): Promise<Answer[]> {
  const receivedAt = deps.now();
  const plans = eventLists.map((events) => plan(deps.inbox, events, receivedAt, provider, reject));
  const sending = plans.filter((p) => p.answer === undefined && p.rows.length > 0);

  if (sending.length > 0) {
    try {
      await deps.queue.send(
        sending.flatMap((p) => p.rows.flatMap((row) => row.events.map((e) => toQueued(row.pk, e)))),
      );
    } catch (error) {
      // Nothing is stored yet; whatever did reach the queue is a verified event the consumer may apply.
      deps.log.error('enqueue failed; nothing stored, the provider will retry', { provider, error: describe(error) });
      for (const p of sending) {
        deps.counters.count('TransientFailures', 1, provider);
        p.answer = { status: 503, body: { error: 'transient_failure' } };
      }
    }
  }

  const storing = plans.filter((p) => p.answer === undefined);
  const rows = storing.flatMap((p) => p.rows);
  const stored = await settleWithLimit(rows, deps.admitConcurrency, (row) => deps.inbox.store(row));
  let offset = 0;
  for (const p of storing) {
    p.answer = answer(deps, provider, p, stored.slice(offset, offset + p.rows.length), reject);
    offset += p.rows.length;
  }
  return plans.map((p) => p.answer!);
}

function plan(
  inbox: InboxStore,
  events: readonly NormalizedEvent[],
  receivedAt: number,
  provider: string,
  reject: Reject,
): Plan {
  const actionable = events.filter(isActionable);
  const result: Plan = { events, ignored: events.length - actionable.length, rows: [], repeated: 0 };
  // A row whose key an earlier row of this request already has is a copy (a SendGrid batch holding one
  // event twice under two ids, keyed by content): answered as a duplicate, neither sent nor stored again.
  const keys = new Set<string>();
  for (const group of groupByRaw(actionable)) {
    try {
      const row = inbox.prepare(group, receivedAt);
      if (keys.has(row.pk)) result.repeated += row.events.length;
      else result.rows.push(row);
      keys.add(row.pk);
    } catch (error) {
      if (!isWebhookError(error) || error.status >= 500)
        return { ...result, rows: [], answer: reject(provider, error) };
      result.refused = error;
    }
  }
  return result;
}

function answer(
  deps: AdmissionDeps,
  provider: string,
  p: Plan,
  stored: PromiseSettledResult<boolean>[],
  reject: Reject,
): Answer {
  let admitted = 0;
  let duplicates = p.repeated;
  let failed = 0;
  stored.forEach((result, i) => {
    const count = p.rows[i]!.events.length;
    if (result.status === 'rejected') {
      failed++;
      deps.log.error('inbox put failed after the send; the provider will retry', {
        provider,
        error: describe(result.reason),
      });
    } else if (result.value) admitted += count;
    else duplicates += count;
  });
  deps.counters.count('EventsAdmitted', admitted, provider);
  deps.counters.count('EventsDuplicate', duplicates, provider);
  deps.counters.count('EventsIgnored', p.ignored, provider);
  if (failed > 0) {
    deps.counters.count('TransientFailures', 1, provider);
    return { status: 503, body: { error: 'transient_failure' } };
  }
  // An event refused for good (too large to store) is answered with its 4xx, so the sender stops
  // retrying it; the others in the same request were enqueued and stored as usual.
  if (p.refused) return reject(provider, p.refused);
  const received = p.events.length;
  const reasons = ignoredReasons(p.events);
  const fields = { provider, received, admitted, duplicates, ignored: p.ignored, ignoredReasons: reasons };
  if (deps.summarizedByCaller) deps.log.debug?.('webhook accepted', fields);
  else deps.log.info('webhook accepted', fields);
  // Why events were ignored, for whoever sent them (a test send to a malformed address says so).
  const why = p.ignored > 0 ? { ignoredReasons: reasons } : {};
  return { status: 200, body: { ok: true, received, admitted, duplicates, ignored: p.ignored, ...why } };
}

function toQueued(pk: string, event: NormalizedEvent): QueuedEvent {
  const { raw: _raw, ...rest } = event;
  return { pk, event: rest };
}

/**
 * Events carrying the same raw payload (one SES notification to several recipients) form one row, so
 * the payload is stored once. The order is the provider's, so a retry of the request builds the same
 * rows under the same keys.
 */
function groupByRaw(events: readonly NormalizedEvent[]): NormalizedEvent[][] {
  const groups = new Map<string, NormalizedEvent[]>();
  for (const event of events) {
    const group = groups.get(event.raw);
    if (group) group.push(event);
    else groups.set(event.raw, [event]);
  }
  return [...groups.values()];
}

export function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
