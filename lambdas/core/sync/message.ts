/**
 * What travels on the sync queue: one address for one provider, nothing more. The worker always reads
 * the record and pushes where it is now, so a message never carries state that could be stale.
 */
import { MalformedRequestError } from '../errors.js';
import { isRecord } from '../json.js';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from './target.js';

export interface SyncMessage {
  email: string;
  provider: SyncProviderName;
}

export function encodeSyncMessage(message: SyncMessage): string {
  return JSON.stringify({ email: message.email, provider: message.provider });
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
  return { email: value.email, provider: value.provider as SyncProviderName };
}
