/**
 * The per-invocation durations `npm run cost` measures, recorded in `cost/durations.json` so that
 * `npm run capacity` can use them without measuring again (measuring takes minutes and needs the local
 * stack; the capacity model is arithmetic and runs in a second). `npm run cost` rewrites the edge, feed
 * and consumer figures; `npx tsx cost/sync.ts` rewrites the sync worker's. Each figure carries the
 * batch it was measured on, and the file says when and under what load.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';

export const DURATIONS_FILE = resolve(import.meta.dirname, 'durations.json');

export interface RecordedDurations {
  /** ISO time and 1-minute load average of the machine when measured (it is shared and noisy). */
  recordedAt: string;
  loadAverage: number;
  /** One front-door request carrying a SendGrid batch of `edgeSendgridBatch` events, median ms. */
  edgeSendgridBatchMs: number;
  edgeSendgridBatch: number;
  /** One SES feed invocation on a batch of `feedBatch` signed envelopes, median ms. */
  feedBatchMs: number;
  feedBatch: number;
  /** One consumer invocation on a batch of `consumerBatch` events, median ms. */
  consumerBatchMs: number;
  consumerBatch: number;
  /** The sync worker's handler time per message against the provider fakes (cost/sync.ts), ms. */
  syncWorkerMsPerMessage?: number;
  /** The reputation counter on a batch of `reputationCounterBatch` inbox stream records, median ms. */
  reputationCounterBatchMs?: number;
  reputationCounterBatch?: number;
}

const REQUIRED = [
  'recordedAt',
  'loadAverage',
  'edgeSendgridBatchMs',
  'edgeSendgridBatch',
  'feedBatchMs',
  'feedBatch',
  'consumerBatchMs',
  'consumerBatch',
] as const;

/** The recorded durations, or a one-line reason they cannot be used. */
export function readDurations(
  file = DURATIONS_FILE,
): { ok: true; durations: RecordedDurations } | { ok: false; problem: string } {
  if (!existsSync(file)) return { ok: false, problem: `${file} does not exist: run \`npm run cost\` once` };
  let value: unknown;
  try {
    value = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return { ok: false, problem: `${file} is not JSON: run \`npm run cost\` to rewrite it` };
  }
  const record = value as Record<string, unknown>;
  for (const key of REQUIRED) {
    const v = record?.[key];
    const good = key === 'recordedAt' ? typeof v === 'string' : typeof v === 'number' && Number.isFinite(v) && v >= 0;
    if (!good) return { ok: false, problem: `${file}: "${key}" is missing or not a number; run \`npm run cost\`` };
  }
  return { ok: true, durations: record as unknown as RecordedDurations };
}

/** Merges `update` into the file (the cost run and the sync cost run each own their own figures). */
export function recordDurations(update: Partial<RecordedDurations>, file = DURATIONS_FILE): void {
  const current = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<RecordedDurations>) : {};
  writeFileSync(file, `${JSON.stringify({ ...current, ...update }, null, 2)}\n`);
}
