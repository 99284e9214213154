/**
 * The concurrency table: how many copies of each function can run at once, read from a CloudFormation
 * template, and the budget they must fit in (CONCURRENCY in definitions.ts). Pure: no CDK, no SDK. The
 * construct checks its own functions with it before synth (constructs/concurrency-budget.ts), and
 * `npm run capacity` can read the synthesized template's with it.
 *
 * A function's possible concurrency is:
 * - its reserved concurrency, when it has one (a ceiling and a reservation: the edge behind either
 *   front door, where a throttled invocation is a 429 from the Function URL or a 500 from API Gateway
 *   ("Handle Lambda errors in API Gateway", https://docs.aws.amazon.com/lambda/latest/dg/services-apigateway-errors.html),
 *   both retried by the sender; a scheduled function);
 * - otherwise the sum of its SQS event source mappings' MaximumConcurrency (a stream mapping, which has
 *   a StartingPosition, has none: one copy per shard, so its function must reserve concurrency);
 * - otherwise unbounded, which the budget refuses: nothing may scale into the account's whole quota.
 * A function with both must reserve at least what its mappings may use, or Lambda would throttle
 * received messages, and each throttled receive counts toward the queue's maxReceiveCount.
 */
import { CONCURRENCY } from './definitions.js';

/** The part of a CloudFormation template the table reads. */
export interface TemplateLike {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Readonly<Record<string, unknown>> }>
  >;
}

export interface ConcurrencyPart {
  /** Readable name: the function's logical id without its hash (`Edge`, `SesQueueFeed`, `SyncWorker`). */
  readonly part: string;
  readonly logicalId: string;
  /** Copies that can run at once; undefined when nothing bounds it. */
  readonly concurrency: number | undefined;
  readonly bound: 'reserved' | 'event sources' | 'none';
  /** The SQS mappings' MaximumConcurrency, summed (undefined if one has none). */
  readonly eventSourceMaximum: number | undefined;
}

export interface ConcurrencyPlan {
  readonly parts: readonly ConcurrencyPart[];
  /** The bounded parts, summed. */
  readonly total: number;
  readonly budget: number;
  /** One line per rule broken (over budget, unbounded, reserved below its mappings); empty when none. */
  readonly problems: readonly string[];
}

/** `EdgeFunction1A2B3C4D` -> `Edge`; `SyncSweeperFunctionABCD1234` -> `SyncSweeper`. */
export function partName(logicalId: string): string {
  return logicalId.replace(/[0-9A-F]{8}$/, '').replace(/Function$/, '') || logicalId;
}

/** The concurrency of every function in `template`, against `budget`. */
export function concurrencyPlan(template: TemplateLike, budget: number = CONCURRENCY.defaultBudget): ConcurrencyPlan {
  const resources = Object.entries(template.Resources);
  const mappings = new Map<string, Array<number | undefined>>();
  const streamTargets = new Set<string>();
  for (const [, resource] of resources) {
    if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
    const target = refOf(resource.Properties?.FunctionName);
    if (resource.Properties?.StartingPosition !== undefined) {
      if (target !== undefined) streamTargets.add(target);
      continue;
    }
    if (target === undefined) continue;
    const max = (resource.Properties?.ScalingConfig as { MaximumConcurrency?: unknown } | undefined)
      ?.MaximumConcurrency;
    const list = mappings.get(target) ?? [];
    list.push(typeof max === 'number' ? max : undefined);
    mappings.set(target, list);
  }

  const parts: ConcurrencyPart[] = [];
  const problems: string[] = [];
  for (const [logicalId, resource] of resources) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const part = partName(logicalId);
    const reserved = resource.Properties?.ReservedConcurrentExecutions;
    const maxima = mappings.get(logicalId);
    const eventSourceMaximum =
      maxima === undefined || maxima.some((m) => m === undefined)
        ? undefined
        : maxima.reduce<number>((sum, m) => sum + (m ?? 0), 0);
    if (maxima?.some((m) => m === undefined))
      problems.push(`${part} has an SQS event source without MaximumConcurrency`);
    if (typeof reserved === 'number') {
      parts.push({ part, logicalId, concurrency: reserved, bound: 'reserved', eventSourceMaximum });
      if (eventSourceMaximum !== undefined && eventSourceMaximum > reserved)
        problems.push(
          `${part} reserves ${reserved} but its event sources may use ${eventSourceMaximum}: received messages would be throttled`,
        );
    } else if (eventSourceMaximum !== undefined) {
      parts.push({ part, logicalId, concurrency: eventSourceMaximum, bound: 'event sources', eventSourceMaximum });
    } else {
      parts.push({ part, logicalId, concurrency: undefined, bound: 'none', eventSourceMaximum });
      if (maxima === undefined)
        problems.push(
          streamTargets.has(logicalId)
            ? `${part} reads a stream and has no reserved concurrency: give it one`
            : `${part} has no concurrency bound: give it reserved concurrency or an SQS MaximumConcurrency`,
        );
    }
  }
  const total = parts.reduce((sum, p) => sum + (p.concurrency ?? 0), 0);
  if (total > budget)
    problems.unshift(
      `the functions' concurrency adds up to ${total}, over concurrencyBudget ${budget}: ${parts
        .filter((p) => p.concurrency !== undefined)
        .map((p) => `${p.part} ${p.concurrency}`)
        .join(' + ')}`,
    );
  return { parts, total, budget, problems };
}

/** `{ Ref: 'Id' }` -> `Id`; a function named by `Fn::GetAtt [Id, Arn]` too. */
function refOf(value: unknown): string | undefined {
  if (value && typeof value === 'object') {
    const v = value as Record<string, unknown>;
    if (typeof v.Ref === 'string') return v.Ref;
    const att = v['Fn::GetAtt'];
    if (Array.isArray(att) && typeof att[0] === 'string') return att[0];
  }
  return undefined;
}
