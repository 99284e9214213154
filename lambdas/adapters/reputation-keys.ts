/**
 * The reputation table's layout, with no SDK: its keys, and the registry row as stored. Shared by the
 * adapter's reader and writer (dynamodb-reputation*.ts) and the `ratchet/client` brake, which reads
 * with @aws-sdk/client-dynamodb alone. Layout (REPUTATION_TABLE in tables.ts for the limits):
 *
 *  - counters: pk `c#<provider>#<sender>#<shard>`, sk `h#<YYYY-MM-DDTHH>` (UTC hour), numbers
 *    `delivered`, `hardBounced`, `softBounced`, `complained`; `expiresAt` (TTL).
 *  - registry: pk `senders#<hash(sender) mod 4>`, sk `<sender>#<provider>`: `provider`, `sender`,
 *    `lastSeenAt`, and what the evaluator stored: `state`, `attempts`, `bounceRate`, `complaintRate`,
 *    `evaluatedAt`, `changedAt`; `expiresAt` (TTL, pushed on by every hour the sender counts).
 */
import { type ReputationState, type ReputationWindow, STATE_WINDOW } from '../core/reputation/state.js';
import { REPUTATION_TABLE as T } from './tables.js';

export const COUNT_FIELDS = ['delivered', 'hardBounced', 'softBounced', 'complained'] as const;

export function counterKey(provider: string, sender: string, shard: number): string {
  return `c#${provider}#${sender}#${shard}`;
}

export function hourKey(hourMs: number): string {
  return `h#${new Date(hourMs).toISOString().slice(0, 13)}`;
}

export function hourOfKey(sk: unknown): number {
  return Date.parse(`${String(sk).slice(2)}:00:00Z`);
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
