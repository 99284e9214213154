/**
 * Traffic profiles for `npm run capacity`: how many messages are sent, at what rate over time, which
 * events come back and which providers are synced. Three are built in; `--profile file.json` reads one
 * with the same fields, checked here (a bad file is one line naming the field, and exit 2).
 */
import { readFileSync } from 'node:fs';
import { SYNC_PROVIDER_NAMES, type SyncProviderName } from '../lambdas/core/sync/target.js';

/** A stretch of constant sending. */
export interface Phase {
  seconds: number;
  sendsPerSecond: number;
}

export interface TrafficProfile {
  name: string;
  description: string;
  /** Sending over time, in order; recipients = Σ seconds × sendsPerSecond. */
  phases: Phase[];
  /** SES publishes a Delivery event per delivered recipient. */
  deliveryEvents: boolean;
  /** Shares of recipients (0–1). A bounced recipient gets no delivery event. */
  bounceRate: number;
  /** Of the bounces, the share that is permanent (a hard bounce: a suppression and a sync change). */
  hardBounceShare: number;
  complaintRate: number;
  unsubscribeRate: number;
  /** Share of events that come through the SES feed; the rest reach the front door as webhooks. */
  feedShare: number;
  /** Events per front-door request (SendGrid posts batches; 1 for one event per request). */
  webhookBatch: number;
  /** Providers the sync worker pushes each suppression change to. */
  syncProviders: SyncProviderName[];
  /** Keys the sync-due index's partition key is spread over (1: the constant `pending`). */
  syncIndexShards?: number;
  /** Concurrency the deployment may use (default: `concurrencyBudget`). */
  concurrencyBudget?: number;
}

/**
 * Share of bounces that are permanent in the standard mix the cost model uses (cost/measure.ts MIX:
 * 3 % hard and 5 % soft bounces), used by the built-in profiles.
 */
export const STANDARD_HARD_BOUNCE_SHARE = 3 / 8;

const day = 86_400;

export const PROFILES: Readonly<Record<'newsletter' | 'campaign' | 'enterprise', TrafficProfile>> = {
  newsletter: {
    name: 'newsletter',
    description:
      '10,000 recipients a day, sent in one go at 50 a second (an assumption: SES publishes no production sending rate, it varies per account); 2 % bounces, 0.05 % complaints, delivery events on, SES sync only',
    phases: [{ seconds: 10_000 / 50, sendsPerSecond: 50 }],
    deliveryEvents: true,
    bounceRate: 0.02,
    hardBounceShare: STANDARD_HARD_BOUNCE_SHARE,
    complaintRate: 0.0005,
    unsubscribeRate: 0.001,
    feedShare: 1,
    webhookBatch: 1,
    syncProviders: ['ses'],
  },
  campaign: {
    name: 'campaign',
    description:
      '1 M recipients at 200 a second (83 minutes), 2 % bounces, 0.05 % complaints, delivery events on, SES sync',
    phases: [{ seconds: 1_000_000 / 200, sendsPerSecond: 200 }],
    deliveryEvents: true,
    bounceRate: 0.02,
    hardBounceShare: STANDARD_HARD_BOUNCE_SHARE,
    complaintRate: 0.0005,
    unsubscribeRate: 0.001,
    feedShare: 1,
    webhookBatch: 1,
    syncProviders: ['ses'],
  },
  enterprise: {
    name: 'enterprise',
    description:
      '50 M recipients a day: an hour at 2,000 a second, the other 42.8 M spread over the remaining 23 hours; 80 % of events through SES, 20 % as SendGrid webhooks in batches of 50; all five providers synced',
    phases: [
      { seconds: 3600, sendsPerSecond: 2000 },
      { seconds: day - 3600, sendsPerSecond: (50_000_000 - 3600 * 2000) / (day - 3600) },
    ],
    deliveryEvents: true,
    bounceRate: 0.02,
    hardBounceShare: STANDARD_HARD_BOUNCE_SHARE,
    complaintRate: 0.0005,
    unsubscribeRate: 0.001,
    feedShare: 0.8,
    webhookBatch: 50,
    syncProviders: [...SYNC_PROVIDER_NAMES],
  },
};

export type ProfileResult = { ok: true; profile: TrafficProfile } | { ok: false; problem: string };

/** Checks a parsed JSON value field by field; the first problem is the answer. */
export function parseProfile(value: unknown, label = 'profile'): ProfileResult {
  const fail = (problem: string): ProfileResult => ({ ok: false, problem: `${label}: ${problem}` });
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail('not a JSON object');
  const v = value as Record<string, unknown>;
  const known = new Set([
    'name',
    'description',
    'phases',
    'deliveryEvents',
    'bounceRate',
    'hardBounceShare',
    'complaintRate',
    'unsubscribeRate',
    'feedShare',
    'webhookBatch',
    'syncProviders',
    'syncIndexShards',
    'concurrencyBudget',
  ]);
  const unknown = Object.keys(v).find((k) => !known.has(k));
  if (unknown) return fail(`unknown field "${unknown}"`);
  if (typeof v.name !== 'string' || v.name.trim() === '') return fail('"name" must be a non-empty string');
  if (!Array.isArray(v.phases) || v.phases.length === 0) return fail('"phases" must be a non-empty array');
  const phases: Phase[] = [];
  for (const [i, p] of v.phases.entries()) {
    const phase = p as Record<string, unknown>;
    if (!isNumber(phase?.seconds, { min: 0, exclusiveMin: true }))
      return fail(`phases[${i}].seconds must be a number above 0`);
    if (!isNumber(phase?.sendsPerSecond, { min: 0 }))
      return fail(`phases[${i}].sendsPerSecond must be a number at least 0`);
    phases.push({ seconds: phase.seconds as number, sendsPerSecond: phase.sendsPerSecond as number });
  }
  const share = (key: string, fallback: number): number | string => {
    if (v[key] === undefined) return fallback;
    return isNumber(v[key], { min: 0, max: 1 }) ? (v[key] as number) : `"${key}" must be a number from 0 to 1`;
  };
  const shares: Record<string, number> = {};
  for (const [key, fallback] of [
    ['bounceRate', 0],
    ['hardBounceShare', STANDARD_HARD_BOUNCE_SHARE],
    ['complaintRate', 0],
    ['unsubscribeRate', 0],
    ['feedShare', 1],
  ] as const) {
    const got = share(key, fallback);
    if (typeof got === 'string') return fail(got);
    shares[key] = got;
  }
  if (v.deliveryEvents !== undefined && typeof v.deliveryEvents !== 'boolean')
    return fail('"deliveryEvents" must be true or false');
  const whole = (key: string, fallback: number | undefined, max: number): number | undefined | string => {
    if (v[key] === undefined) return fallback;
    return isNumber(v[key], { min: 1, max, integer: true })
      ? (v[key] as number)
      : `"${key}" must be a whole number from 1 to ${max}`;
  };
  const webhookBatch = whole('webhookBatch', 1, 1000);
  if (typeof webhookBatch === 'string') return fail(webhookBatch);
  const shards = whole('syncIndexShards', undefined, 1000);
  if (typeof shards === 'string') return fail(shards);
  const budget = whole('concurrencyBudget', undefined, 100_000);
  if (typeof budget === 'string') return fail(budget);
  const providers = v.syncProviders ?? [];
  if (!Array.isArray(providers) || providers.some((p) => !(SYNC_PROVIDER_NAMES as readonly unknown[]).includes(p)))
    return fail(`"syncProviders" must be a list of ${SYNC_PROVIDER_NAMES.join(', ')}`);
  if (new Set(providers).size !== providers.length) return fail('"syncProviders" names a provider twice');
  if (v.description !== undefined && typeof v.description !== 'string') return fail('"description" must be a string');
  return {
    ok: true,
    profile: {
      name: v.name,
      description: (v.description as string | undefined) ?? v.name,
      phases,
      deliveryEvents: (v.deliveryEvents as boolean | undefined) ?? true,
      bounceRate: shares.bounceRate!,
      hardBounceShare: shares.hardBounceShare!,
      complaintRate: shares.complaintRate!,
      unsubscribeRate: shares.unsubscribeRate!,
      feedShare: shares.feedShare!,
      webhookBatch: webhookBatch as number,
      syncProviders: providers as SyncProviderName[],
      ...(shards !== undefined ? { syncIndexShards: shards as number } : {}),
      ...(budget !== undefined ? { concurrencyBudget: budget as number } : {}),
    },
  };
}

/** Reads and checks a profile file; every failure (missing, not JSON, a bad field) is one line. */
export function readProfileFile(path: string): ProfileResult {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { ok: false, problem: `${path}: cannot read it (${code ?? 'error'})` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: `${path}: not JSON` };
  }
  return parseProfile(value, path);
}

function isNumber(
  value: unknown,
  range: { min?: number; max?: number; exclusiveMin?: boolean; integer?: boolean },
): boolean {
  if (typeof value !== 'number' || !Number.isFinite(value)) return false;
  if (range.integer && !Number.isInteger(value)) return false;
  if (range.min !== undefined && (range.exclusiveMin ? value <= range.min : value < range.min)) return false;
  return range.max === undefined || value <= range.max;
}

/** Events per recipient, by kind: what SES (or the webhook provider) sends back for one message. */
export function eventsPerRecipient(p: TrafficProfile) {
  const delivered = p.deliveryEvents ? 1 - p.bounceRate : 0;
  const hard = p.bounceRate * p.hardBounceShare;
  const soft = p.bounceRate - hard;
  return {
    delivered,
    hard,
    soft,
    complaint: p.complaintRate,
    unsubscribe: p.unsubscribeRate,
    total: delivered + p.bounceRate + p.complaintRate + p.unsubscribeRate,
    /** What changes a record's sync projection: a suppression (hard bounce, complaint, unsubscribe). */
    syncChanges: hard + p.complaintRate + p.unsubscribeRate,
    /** What the consumer writes: every bounce, complaint and unsubscribe (a delivery writes only to an existing record). */
    writes: p.bounceRate + p.complaintRate + p.unsubscribeRate,
  };
}
