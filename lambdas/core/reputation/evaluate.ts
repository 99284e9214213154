/**
 * The evaluator, transport-neutral: every registered sender's 24-hour counts → its next state → stored,
 * announced once per change of state, and the two gauges the alarms watch. The Lambda runs it on a
 * schedule with reserved concurrency 1; `npm start` on an interval. Its ports are structural, so the
 * reputation adapter's reader satisfies `senders` as it is.
 */
import type { Log } from '../pipeline/ports.js';
import type { OutcomeCounts } from './counts.js';
import {
  crossedThreshold,
  nextState,
  type Rates,
  type ReputationState,
  type ReputationThresholds,
  rates,
  STATE_WINDOW,
} from './state.js';

export interface SenderCounts extends OutcomeCounts {
  provider: string;
  sender: string;
  /** What the last evaluation stored; absent for a sender never evaluated. */
  storedState?: ReputationState;
}

/** What a notification says: the sender, its rates, and the threshold crossed. */
export interface StateChange extends Rates {
  provider: string;
  sender: string;
  previous: ReputationState;
  state: ReputationState;
  window: typeof STATE_WINDOW;
  /** `breach: hard bounces ≥ 4 %`, `under warn (...)`: which line was crossed, in words. */
  threshold: string;
  thresholds: ReputationThresholds;
}

export interface EvaluatorDeps {
  /** Every registered sender with its counts over the state window (24 h). */
  senders(window: typeof STATE_WINDOW, nowMs: number): Promise<SenderCounts[]>;
  /** Stores the state; true when this call changed it (a conditional write on `previous`). */
  save(
    key: { provider: string; sender: string },
    previous: ReputationState | undefined,
    next: ReputationState,
    r: Rates,
    nowMs: number,
  ): Promise<boolean>;
  /** Announces one change (SNS on AWS; locally the WARN line is the announcement). */
  notify?(change: StateChange): Promise<void>;
  /** The two gauges, every run (zeros included, so the alarms never read missing data as fine or not). */
  publish(gauges: { SendersInWarn: number; SendersInBreach: number }): void;
  thresholds: ReputationThresholds;
  log: Log;
  now: () => number;
}

export interface Evaluation {
  evaluated: number;
  warn: number;
  breach: number;
  changes: StateChange[];
}

export async function evaluateReputation(deps: EvaluatorDeps): Promise<Evaluation> {
  const nowMs = deps.now();
  const senders = await deps.senders(STATE_WINDOW, nowMs);
  const result: Evaluation = { evaluated: senders.length, warn: 0, breach: 0, changes: [] };
  // One sender at a time: a run reads a handful of senders every 5 minutes, and one evaluator runs.
  for (const s of senders) {
    const r = rates(s);
    const state = nextState(s.storedState, r, deps.thresholds);
    if (state === 'warn') result.warn++;
    if (state === 'breach') result.breach++;
    const changed = await deps.save({ provider: s.provider, sender: s.sender }, s.storedState, state, r, nowMs);
    // A first evaluation that finds a sender ok is no change worth a line: ok is where every sender starts.
    const previous = s.storedState ?? 'ok';
    if (!changed || previous === state) continue;
    const change: StateChange = {
      provider: s.provider,
      sender: s.sender,
      previous,
      state,
      window: STATE_WINDOW,
      ...r,
      threshold: crossedThreshold(state, r, deps.thresholds),
      thresholds: deps.thresholds,
    };
    result.changes.push(change);
    deps.log.warn('sender reputation changed', {
      sender: change.sender,
      provider: change.provider,
      from: change.previous,
      to: change.state,
      attempts: change.attempts,
      bounceRate: change.bounceRate,
      complaintRate: change.complaintRate,
      threshold: change.threshold,
    });
    await deps.notify?.(change);
  }
  deps.publish({ SendersInWarn: result.warn, SendersInBreach: result.breach });
  return result;
}

/** The notification's subject and text: what an operator reads in an email from the topic. */
export function describeChange(change: StateChange): { subject: string; text: string } {
  const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
  const t = change.thresholds;
  const subject = `Ratchet: sender ${change.sender} (${change.provider}) is now ${change.state}`.slice(0, 99);
  const text = [
    `Sender ${change.sender} through ${change.provider} went from ${change.previous} to ${change.state}.`,
    `Over the last 24 hours: ${change.attempts} attempts, hard-bounce rate ${pct(change.bounceRate)}, complaint rate ${pct(change.complaintRate)}.`,
    `Threshold: ${change.threshold}.`,
    `Thresholds: warn at ${pct(t.warn.bounce)} hard bounces or ${pct(t.warn.complaint)} complaints; breach at ${pct(t.breach.bounce)} or ${pct(t.breach.complaint)}; judged from ${t.minimumVolume} attempts.`,
    'Webhook complaint rates undercount Gmail, which reports no complaints to SES or Resend: check Postmaster Tools.',
  ].join('\n');
  return { subject, text };
}
