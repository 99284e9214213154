/**
 * The inbox stream's consumer: each batch's first admissions counted into the reputation cells of its
 * stream shard (core/reputation/stream-count.ts says why that is exactly once). The event source
 * mapping has a tumbling window only so that Lambda names the shard in the event (`shardId`); no state
 * is carried between invocations, so every answer's `state` is empty. A failure throws: Lambda retries
 * the batch (bisected), and what still fails after the mapping's retries goes to its on-failure queue.
 */
import { cellBatches, type ReputationCounterDeps } from '../core/reputation/stream-count.js';

export interface StreamCountEvent<R> {
  Records: R[];
  shardId?: string;
  isFinalInvokeForWindow?: boolean;
}

export type ReputationCounterHandler<R> = (event: StreamCountEvent<R>) => Promise<{ state: Record<string, never> }>;

export function createReputationCounterHandler<R>(deps: ReputationCounterDeps<R>): ReputationCounterHandler<R> {
  return async (event) => {
    const records = event.Records ?? [];
    if (records.length === 0) return { state: {} };
    const shard = event.shardId;
    if (!shard) throw new Error('the stream event names no shardId: the event source mapping needs a tumbling window');
    const admitted = records.flatMap((r) => deps.decode(r) ?? []);
    const cells = cellBatches(admitted);
    const { counted, skipped } = cells.length > 0 ? await deps.cells.count(shard, cells) : { counted: 0, skipped: 0 };
    deps.log.info('reputation counted', {
      shard,
      records: records.length,
      admitted: admitted.length,
      cells: cells.length,
      counted,
      alreadyCounted: skipped,
    });
    return { state: {} };
  };
}
