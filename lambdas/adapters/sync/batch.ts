/**
 * What the batching adapters share (SyncTarget.batchKey / maxBatch / applyMany): the check that a batch
 * is one the adapter can carry in one request per stream or domain, and the addresses it sends.
 */
import type { SyncOperation } from '../../core/sync/target.js';

/**
 * The one key every operation of `operations` shares. A batch that is empty, longer than `maxBatch`,
 * mixes keys, or holds an operation that never batches is the caller's mistake, not anything the
 * provider said: a RangeError, before anything is sent (no provider would answer it for us: SendGrid
 * publishes no cap at all, and a mixed batch would push the wrong list).
 */
export function sharedBatchKey(
  operations: readonly SyncOperation[],
  maxBatch: number,
  batchKey: (operation: SyncOperation) => string | undefined,
): string {
  if (operations.length === 0 || operations.length > maxBatch)
    throw new RangeError(`applyMany takes 1 to ${maxBatch} operations, not ${operations.length}`);
  const key = batchKey(operations[0]!);
  if (key === undefined || operations.some((operation) => batchKey(operation) !== key))
    throw new RangeError('applyMany takes only operations that share one batch key');
  return key;
}

/** The addresses of a batch, each once, in order: an address twice in one batch is sent once. */
export function batchEmails(operations: readonly SyncOperation[]): string[] {
  return [...new Set(operations.map((operation) => operation.email))];
}
