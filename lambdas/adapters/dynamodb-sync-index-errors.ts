/**
 * What DynamoDB answers a Query on the `sync-due` index that cannot be read yet. While it builds the
 * index (sync just turned on for a table with records) the text is "Cannot read from backfilling global
 * secondary index"; an index that is not there at all says "does not have the specified index". Both
 * are a ValidationException, and both mean: ask again on the next sweep.
 */
import { TransientError } from '../core/errors.js';

/** The index is being built (sync just turned on for a table with records) or is absent: ask again next sweep. */
export class IndexNotReadyError extends TransientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(`sync index not ready (${message}); the next sweep asks again`, options);
    this.name = 'IndexNotReadyError';
  }
}

const BACKFILLING = /backfilling global secondary index/i;
const MISSING = /does not have the specified index/i;

export function isIndexNotReady(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ValidationException' &&
    (BACKFILLING.test(error.message) || MISSING.test(error.message))
  );
}

export function isMissingIndex(error: unknown): boolean {
  return error instanceof Error && MISSING.test(error.message);
}
