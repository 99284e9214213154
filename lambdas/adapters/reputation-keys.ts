/**
 * The reputation table's layout, with no SDK: its keys, and the registry row as stored. Shared by the
 * adapter's reader and writer (dynamodb-reputation*.ts) and the `ratchet/client` brake, which reads
 * with @aws-sdk/client-dynamodb alone. Layout (REPUTATION_TABLE in tables.ts for the limits):
 *
 *  - counter cells: pk `c#<provider>#<sender>`, sk `h#<YYYY-MM-DDTHH>#<stream shard>` (UTC hour of
 *    admission, then the inbox stream's shard that counted it: each cell has one writer), numbers
 *    `delivered`, `hardBounced`, `softBounced`, `complained`, `hw` (the highest sequence number of that
 *    shard counted, 40 digits), `expiresAt` (TTL). A window is one Query: the hours' cells, summed.
 *  - registry: pk `senders#<hash(sender) mod 4>`, sk `<sender>#<provider>`: `provider`, `sender`,
 *    `lastSeenAt`, and what the evaluator stored: `state`, `attempts`, `bounceRate`, `complaintRate`,
 *    `evaluatedAt`, `changedAt`; `expiresAt` (TTL, pushed on by every hour the sender counts).
 */
import { type ReputationState, type ReputationWindow, STATE_WINDOW } from '../core/reputation/state.js';
import { REPUTATION_TABLE as T } from './tables.js';

export const COUNT_FIELDS = ['delivered', 'hardBounced', 'softBounced', 'complained'] as const;

/** The attribute holding a cell's high-water mark. */
export const HIGH_WATER = 'hw';

export function counterKey(provider: string, sender: string): string {
  return `c#${provider}#${sender}`;
}

export function hourKey(hourMs: number): string {
  return `h#${new Date(hourMs).toISOString().slice(0, 13)}`;
}

/** A cell's sort key: its hour, then its stream shard (`shardId-` is every id's prefix: left out). */
export function cellSortKey(hourMs: number, shard: string): string {
  const id = shard.replace(/^shardId-/, '');
  if (!/^[\w.-]{1,80}$/.test(id)) throw new TypeError(`not a stream shard id: ${shard}`);
  return `${hourKey(hourMs)}#${id}`;
}

/** The sort-key bound past every cell of the hour `hourMs` (`~` sorts after every shard id character). */
export function hourEndKey(hourMs: number): string {
  return `${hourKey(hourMs)}#~`;
}

export function hourOfKey(sk: unknown): number {
  return Date.parse(`${String(sk).slice(2, 15)}:00:00Z`);
}

/** FNV-1a: a stable spread of senders over the registry partitions, the same in every process. */
export function registryKey(sender: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < sender.length; i++) h = Math.imul(h ^ sender.charCodeAt(i), 0x01000193) >>> 0;
  return `senders#${h % T.registryShards}`;
}

export function registryPartitions(): string[] {
  return Array.from({ length: T.registryShards }, (_, k) => `senders#${k}`);
}

/** The sort-key prefix of one sender's rows (one per provider). */
export function registryPrefix(sender: string): string {
  return `${sender}#`;
}

export function registrySortKey(sender: string, provider: string): string {
  return `${registryPrefix(sender)}${provider}`;
}

export interface RegistryRow {
  provider: string;
  sender: string;
  lastSeenAt?: number;
  state?: unknown;
  attempts?: unknown;
  bounceRate?: unknown;
  complaintRate?: unknown;
  evaluatedAt?: number;
  changedAt?: number;
}

/** What the evaluator last stored for a sender with one provider. */
export interface StoredStatus {
  provider: string;
  sender: string;
  state: ReputationState;
  attempts: number;
  bounceRate: number;
  complaintRate: number;
  window: ReputationWindow;
  evaluatedAt?: number;
  changedAt?: number;
}

export function isRegistryRow(item: Record<string, unknown>): boolean {
  return typeof item['provider'] === 'string' && typeof item['sender'] === 'string';
}

export function isState(value: unknown): value is ReputationState {
  return value === 'ok' || value === 'warn' || value === 'breach';
}

export function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/** A registry row the evaluator has judged, as its stored status; undefined when it never was. */
export function storedStatusOf(row: RegistryRow): StoredStatus | undefined {
  if (!isState(row.state)) return undefined;
  return {
    provider: row.provider,
    sender: row.sender,
    state: row.state,
    attempts: num(row.attempts),
    bounceRate: num(row.bounceRate),
    complaintRate: num(row.complaintRate),
    window: STATE_WINDOW,
    ...(typeof row.evaluatedAt === 'number' ? { evaluatedAt: row.evaluatedAt } : {}),
    ...(typeof row.changedAt === 'number' ? { changedAt: row.changedAt } : {}),
  };
}
