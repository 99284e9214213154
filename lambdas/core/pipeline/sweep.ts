/**
 * The sweeper: the last line of the losslessness argument. A row still `pending` when its re-send time
 * comes was stored but not applied: SendMessage failed, the process died between the put and the send,
 * or the message is late (a slow consumer, a backlog, the DLQ). No provider retry repaired it, so the
 * sweeper sends it again. Re-sending is always safe: applying an event is idempotent.
 *
 * It cannot tell "never sent" from "sent, not applied yet", so each re-send doubles the wait before the
 * next one. A consumer outage then costs a handful of duplicate messages per event, not a queue that
 * grows every run; and an event that keeps failing stops being re-sent after `maxResends`, leaving its
 * copies in the DLQ and its row in the inbox for an operator (`ratchet inbox replay`).
 */
import type { Clock } from '../time.js';
import type { Counters, DueRow, EventQueue, InboxStore, Log } from './ports.js';

export interface SweeperDeps {
  inbox: InboxStore;
  queue: EventQueue;
  now: Clock;
  log: Log;
  counters: Counters;
  /** The first wait (edge put → first re-send), doubled after each re-send. */
  resendAfterMs: number;
  /** The longest wait between two re-sends. */
  maxResendIntervalMs: number;
  /** Re-sends per row before the sweeper gives up on it. */
  maxResends: number;
  /** Upper bound per run, so one invocation stays well inside its timeout. */
  maxRows: number;
}

export interface SweepResult {
  resent: number;
  gaveUp: number;
}

/** The wait after the `resends`-th re-send: resendAfter × 2^resends, capped. */
export function resendDelayMs(deps: Pick<SweeperDeps, 'resendAfterMs' | 'maxResendIntervalMs'>, resends: number): number {
  return Math.min(deps.resendAfterMs * 2 ** resends, deps.maxResendIntervalMs);
}

export async function sweepPending(deps: SweeperDeps): Promise<SweepResult> {
  const now = deps.now();
  const due = await deps.inbox.listDue(now, deps.maxRows);
  if (due.length === 0) return { resent: 0, gaveUp: 0 };
  const resend = due.filter((row) => row.resends < deps.maxResends);
  const abandon = due.filter((row) => row.resends >= deps.maxResends);

  // Send first: if this throws, nothing is rescheduled and the next run tries the same rows again.
  if (resend.length > 0) await deps.queue.send(resend.map(({ pk, event }) => ({ pk, event })));
  await reschedule(deps, resend, (row) => [row.resends + 1, now + resendDelayMs(deps, row.resends + 1)]);
  await reschedule(deps, abandon, (row) => [row.resends, null]);

  if (resend.length > 0) {
    deps.log.warn('sweeper re-enqueued rows not applied in time', { count: resend.length });
    countByProvider(deps.counters, 'EventsResent', resend);
  }
  if (abandon.length > 0) {
    // Loud on purpose: these events reached the queue `maxResends` times and were never applied.
    deps.log.error('sweeper gave up on rows never applied; see the DLQ and `ratchet inbox replay`', {
      pks: abandon.map((row) => row.pk),
    });
    countByProvider(deps.counters, 'EventsAbandoned', abandon);
  }
  return { resent: resend.length, gaveUp: abandon.length };
}

async function reschedule(
  deps: SweeperDeps,
  rows: readonly DueRow[],
  next: (row: DueRow) => [resends: number, nextAtMs: number | null],
): Promise<void> {
  for (const row of rows) {
    try {
      await deps.inbox.scheduleResend(row.pk, ...next(row));
    } catch (error) {
      // Harmless: the row stays due and is re-sent (once more) on the next run.
      deps.log.warn('sweeper could not reschedule a row; it will be re-sent next run', { error: String(error) });
    }
  }
}

function countByProvider(counters: Counters, name: string, rows: readonly DueRow[]): void {
  const perProvider = new Map<string, number>();
  for (const row of rows) perProvider.set(row.event.provider, (perProvider.get(row.event.provider) ?? 0) + 1);
  for (const [provider, count] of perProvider) counters.count(name, count, provider);
}
