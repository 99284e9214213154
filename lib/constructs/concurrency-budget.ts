/**
 * The budget check at synth: the Lambda functions and SQS event source mappings under a scope, read
 * from the construct tree the way they will appear in the template, through the same table
 * `npm run capacity` reads the synthesized template with (lib/concurrency.ts). Every function counts,
 * whoever added it, so a new one needs no change here.
 */
import { Stack } from 'aws-cdk-lib';
import { CfnEventSourceMapping, CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import { type ConcurrencyPlan, concurrencyPlan, type TemplateLike } from '../concurrency.js';
import { ContextError } from '../context-values.js';

/** The functions and mappings under `scope`, as template resources. */
export function concurrencyTemplate(scope: IConstruct): TemplateLike {
  const stack = Stack.of(scope);
  const resources: Record<string, { Type: string; Properties: Record<string, unknown> }> = {};
  for (const c of scope.node.findAll()) {
    if (c instanceof CfnFunction) {
      resources[stack.getLogicalId(c)] = {
        Type: 'AWS::Lambda::Function',
        Properties: { ReservedConcurrentExecutions: stack.resolve(c.reservedConcurrentExecutions) },
      };
    } else if (c instanceof CfnEventSourceMapping) {
      // The L1 property in its JavaScript shape (`maximumConcurrency`), written as the template has it.
      const scaling = stack.resolve(c.scalingConfig) as { maximumConcurrency?: unknown } | undefined;
      resources[stack.getLogicalId(c)] = {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          FunctionName: stack.resolve(c.functionName),
          ScalingConfig: { MaximumConcurrency: scaling?.maximumConcurrency },
          ...(c.startingPosition !== undefined ? { StartingPosition: c.startingPosition } : {}),
        },
      };
    }
  }
  return { Resources: resources };
}

/** Throws one line naming every part and its number when the plan breaks a rule (over budget, unbounded). */
export function assertConcurrencyBudget(scope: IConstruct, budget: number): ConcurrencyPlan {
  const plan = concurrencyPlan(concurrencyTemplate(scope), budget);
  if (plan.problems.length > 0) throw new ContextError(`context concurrencyBudget: ${plan.problems.join('; ')}`);
  return plan;
}
