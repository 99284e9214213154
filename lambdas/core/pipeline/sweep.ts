/**
 * The sweeper: the last line of the losslessness argument. A row that stays `pending` means the edge
 * stored an event but never confirmed it reached the queue (SendMessage failed, or the process died
 * between the put and the send) and no provider retry repaired it. Re-sending is always safe.
 */
import type { Clock } from '../time.js';
import type { EventQueue, InboxStore, Log } from './ports.js';

export interface SweeperDeps {
  inbox: InboxStore;
  queue: EventQueue;
  now: Clock;
  log: Log;
  /** Rows pending for longer than this are re-sent; shorter would race the edge's own send. */
  pendingAfterMs: number;
  /** Upper bound per run, so one invocation stays well inside its timeout. */
  maxRows: number;
}

export async function sweepPending(deps: SweeperDeps): Promise<{ resent: number }> {
  const stale = await deps.inbox.listPending(deps.now() - deps.pendingAfterMs, deps.maxRows);
  if (stale.length === 0) return { resent: 0 };
  await deps.queue.send(stale);
  for (const message of stale) {
    try {
      await deps.inbox.markEnqueued(message.pk);
    } catch (error) {
      deps.log.warn('sweeper could not mark a row enqueued; it will be re-sent next run', { error: String(error) });
    }
  }
  deps.log.warn('sweeper re-enqueued pending rows', { count: stale.length });
  return { resent: stale.length };
}
