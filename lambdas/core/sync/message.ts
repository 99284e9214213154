/**
 * What travels on the sync queue: one address for one provider, and whether a push for it may already
 * have reached the provider. The worker always reads the record and pushes where it is now, so a
 * message never carries state that could be stale.
 *
 * `recheck`: the sweeper sends this item again (its earlier message may have been pushed by a worker
 * that died before recording the answer), so the worker asks the provider before pushing. Absent on a
 * first message (the fast path, a first sweep), so the first push of a change stays one provider call.
 * Messages written before the field existed parse as first messages.
 *
 * `turn`: the rate slot (epoch ms) the worker's gate reserved for this message when it handed it back
 * (sync-gate.ts); the gate runs it then rather than at the end of the line. A hint, never trusted for
 * more than ordering: the gate still spaces every call one interval apart.
 */
import { MalformedRequestError, TransientError } from '../errors.js';
import { isRecord } from '../json.js';
import { sqsJson } from '../sqs-body.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from './target.js';

export interface SyncMessage {
  email: string;
  provider: SyncProviderName;
  recheck?: true;
  turn?: number;
}

/** Always a body SQS takes (sqs-body.ts): a refused one would fail the whole sweep page it is sent with, every sweep. */
export function encodeSyncMessage(message: SyncMessage): string {
  return sqsJson({
    email: message.email,
    provider: message.provider,
    ...(message.recheck ? { recheck: true } : {}),
    ...(message.turn !== undefined ? { turn: message.turn } : {}),
  });
}

export function parseSyncMessage(body: string): SyncMessage {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new MalformedRequestError('sync message is not JSON');
  }
  if (!isRecord(value) || typeof value.email !== 'string' || value.email === '')
    throw new MalformedRequestError('sync message has no email');
  if (!(SYNC_PROVIDER_NAMES as readonly unknown[]).includes(value.provider))
    throw new MalformedRequestError('sync message has no known provider');
  return {
    email: value.email,
    provider: value.provider as SyncProviderName,
    ...(value.recheck === true ? { recheck: true as const } : {}),
    // A turn that is not a time is dropped, not refused: it only orders, and the change must still be pushed.
    ...(typeof value.turn === 'number' && Number.isFinite(value.turn) && value.turn > 0 ? { turn: value.turn } : {}),
  };
}

/**
 * A send the queue did not wholly take: `unsent` are the messages not on it; the others are queued. The
 * sweep leases the items it queued and leaves the rest due, so neither a lost message nor a second copy.
 */
export class SyncSendError extends TransientError {
  constructor(
    readonly unsent: readonly SyncMessage[],
    options?: { cause?: unknown },
  ) {
    super('sync SendMessageBatch failed', options);
  }
}
