/** The scheduled evaluator: one run, one summary line; the WARN lines and notifications are the changes. */
import { type EvaluatorDeps, evaluateReputation } from '../core/reputation/evaluate.js';

export type ReputationHandler = () => Promise<{ evaluated: number; warn: number; breach: number; changes: number }>;

export function createReputationHandler(deps: EvaluatorDeps): ReputationHandler {
  return async () => {
    const result = await evaluateReputation(deps);
    const summary = {
      evaluated: result.evaluated,
      warn: result.warn,
      breach: result.breach,
      changes: result.changes.length,
    };
    deps.log.info('reputation evaluated', summary);
    return summary;
  };
}
