/**
 * The ratchet's knobs. Only the soft-bounce budget is configurable from settings: everything else
 * (complaints, hard bounces, unsubscribes suppress at once) is the point of the project, not a policy.
 */

import { numberFromSettings, type SettingDeclaration, type Settings } from '../settings.js';
import { parseTopicAliases, TOPIC_ALIASES_SETTING, TOPIC_ALIASES_VARIABLE, type TopicAliases } from '../topics.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The settings policyFromSettings reads (besides TOPIC_ALIASES). */
export const SOFT_BOUNCE_VARIABLES = { limit: 'SOFT_BOUNCE_LIMIT', windowDays: 'SOFT_BOUNCE_WINDOW_DAYS' } as const;

export interface RatchetPolicy {
  /**
   * Distinct messages soft-bounced (after the latest delivery) that suppress, when they fall within
   * the window. Several soft bounces of one message are one strike.
   */
  softBounceLimit: number;
  /** The `softBounceLimit` strikes must have bounces within this much event time, ms. */
  softBounceWindowMs: number;
  /**
   * Evidence entries kept per kind (newest first), so an item stays far below DynamoDB's 400 KB.
   * Defaults to DEFAULT_EVIDENCE_PER_KIND; settable mainly so tests can reach the cap with few events.
   */
  evidencePerKind?: number;
  /**
   * TOPIC_ALIASES: canonical topic name → the user's own. Applied here, when an event is written to
   * the record, not at the edge: the inbox keeps the provider's own scope, so changing an alias and
   * replaying (`ratchet inbox replay`) re-maps, and one parser serves the consumer and the CLI.
   */
  topicAliases?: TopicAliases;
}

export const DEFAULT_RATCHET_POLICY: RatchetPolicy = Object.freeze({
  softBounceLimit: 3,
  softBounceWindowMs: 30 * DAY_MS,
});

/** 4 suppressing kinds x 20 entries, plus max(20, 2 x limit) soft bounces: 100-120 entries, ~230 KB in the worst case (every string at its clip length, 3-byte characters). */
export const DEFAULT_EVIDENCE_PER_KIND = 20;
/** Manual actions kept in `audit` (newest). */
export const AUDIT_CAP = 30;

// Bounded so the soft-bounce map (2x the limit at most) keeps the worst-case item far below 400 KB.
const MAX_SOFT_BOUNCE_LIMIT = 20;
const MAX_WINDOW_DAYS = 3650;

/** Everything policyFromSettings reads. */
export const POLICY_SETTINGS: readonly SettingDeclaration[] = [
  {
    variable: SOFT_BOUNCE_VARIABLES.limit,
    contextKey: 'softBounceLimit',
    describe: `Soft bounces after the latest delivery that suppress, a whole number from 1 to ${MAX_SOFT_BOUNCE_LIMIT} (default ${DEFAULT_RATCHET_POLICY.softBounceLimit})`,
  },
  {
    variable: SOFT_BOUNCE_VARIABLES.windowDays,
    contextKey: 'softBounceWindowDays',
    describe: `The event time those soft bounces may span, in days above 0 and at most ${MAX_WINDOW_DAYS} (default ${DEFAULT_RATCHET_POLICY.softBounceWindowMs / DAY_MS})`,
  },
  TOPIC_ALIASES_SETTING,
];

/** Throws unless the policy is usable; called by every entry point, so a bad object fails loudly. */
export function assertPolicy(policy: RatchetPolicy): void {
  const { softBounceLimit, softBounceWindowMs, evidencePerKind } = policy;
  if (!Number.isInteger(softBounceLimit) || softBounceLimit < 1 || softBounceLimit > MAX_SOFT_BOUNCE_LIMIT) {
    throw new RangeError(`softBounceLimit must be a whole number between 1 and ${MAX_SOFT_BOUNCE_LIMIT}`);
  }
  if (!Number.isFinite(softBounceWindowMs) || softBounceWindowMs < 0) {
    throw new RangeError('softBounceWindowMs must be a non-negative number of milliseconds');
  }
  if (evidencePerKind !== undefined && (!Number.isInteger(evidencePerKind) || evidencePerKind < 1)) {
    throw new RangeError('evidencePerKind must be a positive whole number');
  }
  if (policy.topicAliases !== undefined && !(policy.topicAliases instanceof Map)) {
    throw new TypeError('topicAliases must be a Map (see parseTopicAliases)');
  }
}

/**
 * How many soft bounces are kept. At least twice the limit, so the budget check always sees a full
 * run; reaching this many soft bounces since the latest delivery counts as crossing the limit
 * whatever their spread (see normalize.ts: that rule is what keeps the cap order-independent).
 */
export function softBounceCap(policy: RatchetPolicy): number {
  return Math.max(policy.evidencePerKind ?? DEFAULT_EVIDENCE_PER_KIND, 2 * policy.softBounceLimit);
}

/**
 * Soft-bounce entries kept per message: enough for one message's whole retry schedule (Mailgun
 * reports 6 to 7 temporary failures over its 8 hours), so a strike's earliest date is exact in
 * practice; and at most (cap - 1) / (limit - 1), so a full soft-bounce cap always holds `limit`
 * distinct messages (see normalize.ts: a full cap counts as crossing the limit).
 */
export function softBouncesPerMessage(policy: RatchetPolicy): number {
  // A limit of 1 divides by zero: Infinity, so the maximum (one soft bounce suppresses anyway).
  return Math.min(MAX_SOFT_BOUNCES_PER_MESSAGE, Math.floor((softBounceCap(policy) - 1) / (policy.softBounceLimit - 1)));
}

const MAX_SOFT_BOUNCES_PER_MESSAGE = 8;

export function evidenceCap(policy: RatchetPolicy): number {
  return policy.evidencePerKind ?? DEFAULT_EVIDENCE_PER_KIND;
}

/**
 * Reads `SOFT_BOUNCE_LIMIT` (whole number 1..20, default 3) and `SOFT_BOUNCE_WINDOW_DAYS`
 * (positive number of days up to 3650, decimals allowed, default 30). Unset or blank means default;
 * anything else that does not parse throws: a typo must not silently become "never suppress".
 * Also reads TOPIC_ALIASES (see parseTopicAliases), which throws on a malformed list.
 */
export function policyFromSettings(settings: Settings): RatchetPolicy {
  const softBounceLimit = numberFromSettings(settings, SOFT_BOUNCE_VARIABLES.limit, {
    default: DEFAULT_RATCHET_POLICY.softBounceLimit,
    expected: `a whole number between 1 and ${MAX_SOFT_BOUNCE_LIMIT}`,
    min: 1,
    max: MAX_SOFT_BOUNCE_LIMIT,
    integer: true,
  });
  const days = numberFromSettings(settings, SOFT_BOUNCE_VARIABLES.windowDays, {
    default: DEFAULT_RATCHET_POLICY.softBounceWindowMs / DAY_MS,
    expected: `a number of days above 0 and at most ${MAX_WINDOW_DAYS}`,
    min: 0,
    exclusiveMin: true,
    max: MAX_WINDOW_DAYS,
  });
  const softBounceWindowMs = Math.round(days * DAY_MS);
  const topicAliases = parseTopicAliases(settings[TOPIC_ALIASES_VARIABLE]);
  return topicAliases.size > 0
    ? { softBounceLimit, softBounceWindowMs, topicAliases }
    : { softBounceLimit, softBounceWindowMs };
}
