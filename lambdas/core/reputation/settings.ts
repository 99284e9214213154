/**
 * The reputation thresholds as settings: percentages in the environment (`2` is 2 %), fractions in
 * the core. Read by the evaluator, the local runtime and the CLI, so all three judge alike.
 */
import { numberFromSettings, type SettingDeclaration, type Settings } from '../settings.js';
import { DEFAULT_THRESHOLDS, type ReputationThresholds } from './state.js';

export const REPUTATION_VARIABLES = {
  warnBounce: 'REPUTATION_WARN_BOUNCE_PERCENT',
  warnComplaint: 'REPUTATION_WARN_COMPLAINT_PERCENT',
  breachBounce: 'REPUTATION_BREACH_BOUNCE_PERCENT',
  breachComplaint: 'REPUTATION_BREACH_COMPLAINT_PERCENT',
  minimumVolume: 'REPUTATION_MIN_VOLUME',
} as const;

const V = REPUTATION_VARIABLES;
const pct = (fraction: number) => Number((fraction * 100).toPrecision(6));
const D = DEFAULT_THRESHOLDS;

export const REPUTATION_SETTINGS: readonly SettingDeclaration[] = [
  {
    variable: V.warnBounce,
    contextKey: 'reputationWarnBouncePercent',
    describe: `Hard-bounce rate, in percent of attempts, at which a sender turns \`warn\` (default ${pct(D.warn.bounce)})`,
  },
  {
    variable: V.warnComplaint,
    contextKey: 'reputationWarnComplaintPercent',
    describe: `Complaint rate, in percent, at which a sender turns \`warn\` (default ${pct(D.warn.complaint)})`,
  },
  {
    variable: V.breachBounce,
    contextKey: 'reputationBreachBouncePercent',
    describe: `Hard-bounce rate, in percent, at which a sender turns \`breach\`; above the warn rate (default ${pct(D.breach.bounce)})`,
  },
  {
    variable: V.breachComplaint,
    contextKey: 'reputationBreachComplaintPercent',
    describe: `Complaint rate, in percent, at which a sender turns \`breach\`; above the warn rate (default ${pct(D.breach.complaint)})`,
  },
  {
    variable: V.minimumVolume,
    contextKey: 'reputationMinVolume',
    describe: `Attempts in the window below which a sender is \`ok\` whatever its rates, a whole number (default ${D.minimumVolume})`,
  },
];

const PERCENT = { expected: 'a percentage above 0 and at most 100', min: 0, exclusiveMin: true, max: 100 };

/** Throws a plain Error naming the variable when a value does not parse or warn is not under breach. */
export function thresholdsFromSettings(settings: Settings): ReputationThresholds {
  const percent = (variable: string, fallback: number) =>
    numberFromSettings(settings, variable, { ...PERCENT, default: pct(fallback) }) / 100;
  const t: ReputationThresholds = {
    warn: { bounce: percent(V.warnBounce, D.warn.bounce), complaint: percent(V.warnComplaint, D.warn.complaint) },
    breach: {
      bounce: percent(V.breachBounce, D.breach.bounce),
      complaint: percent(V.breachComplaint, D.breach.complaint),
    },
    minimumVolume: numberFromSettings(settings, V.minimumVolume, {
      default: D.minimumVolume,
      expected: 'a whole number of attempts',
      min: 0,
      integer: true,
    }),
  };
  if (t.warn.bounce >= t.breach.bounce)
    throw new Error(`${V.warnBounce} must be below ${V.breachBounce} (warn comes before breach)`);
  if (t.warn.complaint >= t.breach.complaint)
    throw new Error(`${V.warnComplaint} must be below ${V.breachComplaint} (warn comes before breach)`);
  return t;
}
