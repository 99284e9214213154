/**
 * A sender's state from its counts: `ok`, `warn` or `breach`, pure. Judged on the rolling 24 hours
 * (what SES, Resend and GC Notify judge on); the 7-day figures are shown beside it, judged the same
 * way without memory. Thresholds are "at or above": 2 % is warn at a 2 % warn threshold.
 *
 *  - Below the minimum volume a sender is `ok` whatever its rates: 3 bounces in 20 sends is noise.
 *  - `breach` when the hard-bounce or the complaint rate reaches its breach threshold, `warn` when one
 *    reaches its warn threshold.
 *  - Hysteresis: a sender in `breach` stays there until both its 24-hour rates fall under `warn`
 *    (whatever its volume), so a sender hovering at the breach line does not flap, and braked mail
 *    resumes only once the rates are back where a warning would not fire.
 */
import { attempts, type OutcomeCounts } from './counts.js';

export const REPUTATION_STATES = ['ok', 'warn', 'breach'] as const;
export type ReputationState = (typeof REPUTATION_STATES)[number];

export const REPUTATION_WINDOWS = ['24h', '7d'] as const;
export type ReputationWindow = (typeof REPUTATION_WINDOWS)[number];
export const WINDOW_HOURS: Readonly<Record<ReputationWindow, number>> = { '24h': 24, '7d': 168 };
/** The window the stored state (alarms, notifications, the client's brake) is judged on. */
export const STATE_WINDOW: ReputationWindow = '24h';

export interface RateThresholds {
  /** Hard bounces / attempts, a fraction (0.02 is 2 %). */
  bounce: number;
  /** Complaints / attempts, a fraction. */
  complaint: number;
}

export interface ReputationThresholds {
  warn: RateThresholds;
  breach: RateThresholds;
  /** Attempts in the window below which a sender is `ok`. */
  minimumVolume: number;
}

/** Resend's acceptable-use limits (4 %, 0.08 %) as breach, half the bounce and ~60 % of the complaint limit as warn. */
export const DEFAULT_THRESHOLDS: Readonly<ReputationThresholds> = {
  warn: { bounce: 0.02, complaint: 0.0005 },
  breach: { bounce: 0.04, complaint: 0.0008 },
  minimumVolume: 1000,
};

export interface Rates {
  attempts: number;
  bounceRate: number;
  complaintRate: number;
}

export function rates(counts: OutcomeCounts): Rates {
  const n = attempts(counts);
  return {
    attempts: n,
    bounceRate: n === 0 ? 0 : counts.hardBounced / n,
    complaintRate: n === 0 ? 0 : counts.complained / n,
  };
}

function reaches(r: Rates, t: RateThresholds): boolean {
  return r.bounceRate >= t.bounce || r.complaintRate >= t.complaint;
}

/** The state the rates give on their own, with no memory (the 7-day view, and a sender not in breach). */
export function levelOf(r: Rates, t: ReputationThresholds): ReputationState {
  if (r.attempts < t.minimumVolume) return 'ok';
  if (reaches(r, t.breach)) return 'breach';
  return reaches(r, t.warn) ? 'warn' : 'ok';
}

/** The next stored state from the previous one and the 24-hour rates. Idempotent: next(next(p, r), r) = next(p, r). */
export function nextState(previous: ReputationState | undefined, r: Rates, t: ReputationThresholds): ReputationState {
  if (previous === 'breach' && reaches(r, t.warn)) return 'breach';
  return levelOf(r, t);
}

/** What a change of state names: which threshold, at what value, the rate crossed (or fell back under). */
export function crossedThreshold(state: ReputationState, r: Rates, t: ReputationThresholds): string {
  const pct = (x: number) => `${(x * 100).toFixed(3).replace(/\.?0+$/, '')} %`;
  if (state === 'ok') {
    return r.attempts < t.minimumVolume
      ? `fewer than ${t.minimumVolume} attempts in 24 h`
      : `under warn (bounces ${pct(t.warn.bounce)}, complaints ${pct(t.warn.complaint)})`;
  }
  const limits = t[state];
  const which: string[] = [];
  if (r.bounceRate >= limits.bounce) which.push(`hard bounces ≥ ${pct(limits.bounce)}`);
  if (r.complaintRate >= limits.complaint) which.push(`complaints ≥ ${pct(limits.complaint)}`);
  // A breach held by hysteresis: the rates sit between warn and breach.
  if (which.length === 0)
    which.push(`held until both rates fall under warn (${pct(t.warn.bounce)}, ${pct(t.warn.complaint)})`);
  return `${state}: ${which.join(', ')}`;
}

export function formatRate(x: number): string {
  return `${(x * 100).toFixed(2)} %`;
}
