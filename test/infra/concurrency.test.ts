/**
 * Bounded concurrency: every SQS event source mapping has MaximumConcurrency, every function is bounded
 * (reserved concurrency, or its mappings), and the bounds add up to at most `concurrencyBudget`; synth
 * refuses an overrun with one line naming the parts, through bin/app.ts without a stack trace.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concurrencyPlan } from '../../lib/concurrency.js';
import { assertConcurrencyBudget } from '../../lib/constructs/concurrency-budget.js';
import { CONCURRENCY, CONSUMER, SES_FEED } from '../../lib/definitions.js';
import { SYNC_SWEEPER, SYNC_WORKER } from '../../lib/sync-definitions.js';
import { functionLogicalId, NO_BUNDLING, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

const CONFIGURATIONS = {
  'api-gateway': {},
  'function-url, sync': { front: 'function-url', syncProviders: 'ses,sendgrid' },
} as const;

const synthesized = new Map<string, Synthesized>();
beforeAll(() => {
  for (const [name, context] of Object.entries(CONFIGURATIONS)) synthesized.set(name, synthesizeTemplate(context));
}, 180_000);
afterAll(() => {
  for (const s of synthesized.values()) s.cleanup();
});

describe.each(Object.keys(CONFIGURATIONS))('%s', (name) => {
  const s = () => synthesized.get(name)!;
  const template = () => s().template.toJSON() as Parameters<typeof concurrencyPlan>[0];

  it('every SQS event source mapping has MaximumConcurrency, from definitions; the stream mapping none (one copy a shard)', () => {
    const r = s().stack.ratchet;
    const expected: Record<string, number> = {
      [functionLogicalId(r.feed!)]: SES_FEED.maxConcurrency,
      [functionLogicalId(r.consumer)]: CONSUMER.maxConcurrency,
      ...(r.sync ? { [functionLogicalId(r.sync.worker)]: SYNC_WORKER.maxConcurrency } : {}),
      // The inbox stream's mapping: bounded by the counter's reserved concurrency instead.
      [functionLogicalId(r.reputation.counter.handler)]: undefined as unknown as number,
    };
    const mappings = Object.values(resources(s())).filter((x) => x.Type === 'AWS::Lambda::EventSourceMapping');
    expect(mappings).toHaveLength(Object.keys(expected).length);
    const actual = Object.fromEntries(
      mappings.map((m) => [m.Properties.FunctionName.Ref, m.Properties.ScalingConfig?.MaximumConcurrency]),
    );
    expect(actual).toEqual(expected);
  });

  it('every function is bounded, and the bounds fit the default budget of 200', () => {
    const plan = concurrencyPlan(template());
    expect(plan.problems).toEqual([]);
    const functions = Object.values(resources(s())).filter((x) => x.Type === 'AWS::Lambda::Function');
    expect(plan.parts).toHaveLength(functions.length);
    for (const part of plan.parts) expect(part.concurrency, part.part).toBeGreaterThanOrEqual(1);
    expect(plan.total).toBeLessThanOrEqual(CONCURRENCY.defaultBudget);
    expect(plan.budget).toBe(200);
  });

  it("the table read from the template is the construct's own, part for part", () => {
    const plan = concurrencyPlan(template());
    expect(plan).toEqual(s().stack.ratchet.concurrency);
    const r = s().stack.ratchet;
    const byPart = Object.fromEntries(plan.parts.map((p) => [p.part, [p.concurrency, p.bound]]));
    expect(byPart.Edge).toEqual([r.config.edgeReservedConcurrency, 'reserved']);
    expect(byPart.SesQueueFeed).toEqual([SES_FEED.maxConcurrency, 'event sources']);
    expect(byPart.Consumer).toEqual([CONSUMER.maxConcurrency, 'event sources']);
    if (r.sync) {
      expect(byPart.SyncWorker).toEqual([SYNC_WORKER.maxConcurrency, 'event sources']);
      expect(byPart.SyncSweeper).toEqual([SYNC_SWEEPER.reservedConcurrency, 'reserved']);
    }
  });
});

describe('synth refuses a budget overrun', () => {
  it('names every part and its number, in one line', () => {
    expect(() => synthesizeTemplate({ concurrencyBudget: 100 })).toThrow(
      /^context concurrencyBudget: the functions' concurrency adds up to 140, over concurrencyBudget 100: ReputationEvaluator 1 \+ ReputationCounter 4 \+ Edge 120 \+ SesQueueFeed 10 \+ Consumer 5$/,
    );
    // Exactly at the budget is fine.
    const s = synthesizeTemplate({ concurrencyBudget: 140 });
    s.cleanup();
  });

  it('counts what each setting adds: a larger edge reservation can push it over', () => {
    expect(() => synthesizeTemplate({ edgeReservedConcurrency: 190 })).toThrow(
      /adds up to 210, over concurrencyBudget 200: ReputationEvaluator 1 \+ ReputationCounter 4 \+ Edge 190 \+ SesQueueFeed 10 \+ Consumer 5/,
    );
  });

  it('counts a function added beside the construct, and refuses one with no bound at all', () => {
    const app = new App({ context: { ...NO_BUNDLING } });
    const stack = new Stack(app, 'Extra');
    const code = lambda.Code.fromInline('exports.handler = async () => {}');
    const props = { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code };
    new lambda.Function(stack, 'Bounded', { ...props, reservedConcurrentExecutions: 7 });
    expect(assertConcurrencyBudget(stack, 7).total).toBe(7);
    expect(() => assertConcurrencyBudget(stack, 6)).toThrow(/adds up to 7, over concurrencyBudget 6: Bounded 7/);
    new lambda.Function(stack, 'Evaluator', props);
    expect(() => assertConcurrencyBudget(stack, 100)).toThrow(
      /^context concurrencyBudget: Evaluator has no concurrency bound: give it reserved concurrency or an SQS MaximumConcurrency$/,
    );
  });

  it('through `cdk synth` (bin/app.ts): one line on stderr, exit 1, no stack trace', () => {
    const out = mkdtempSync(join(tmpdir(), 'ratchet-budget-'));
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'bin/app.ts'], {
        encoding: 'utf8',
        stdio: 'pipe',
        timeout: 120_000,
        env: {
          ...process.env,
          CDK_OUTDIR: out,
          CDK_CONTEXT_JSON: JSON.stringify({ ...NO_BUNDLING, concurrencyBudget: 50, syncProviders: 'sendgrid' }),
        },
      });
      expect.unreachable('synth should have failed');
    } catch (error) {
      const { status, stderr } = error as { status: number; stderr: string };
      expect(status).toBe(2);
      expect(stderr).toBe(
        "context concurrencyBudget: the functions' concurrency adds up to 143, over concurrencyBudget 50: ReputationEvaluator 1 + ReputationCounter 4 + Edge 120 + SesQueueFeed 10 + Consumer 5 + SyncWorker 2 + SyncSweeper 1\n",
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 150_000);
});

describe('concurrencyPlan (pure, on template JSON)', () => {
  const fn = (reserved?: number) => ({
    Type: 'AWS::Lambda::Function',
    Properties: reserved === undefined ? {} : { ReservedConcurrentExecutions: reserved },
  });
  const mapping = (target: string, max?: number) => ({
    Type: 'AWS::Lambda::EventSourceMapping',
    Properties: { FunctionName: { Ref: target }, ...(max ? { ScalingConfig: { MaximumConcurrency: max } } : {}) },
  });

  it('sums a function’s mappings, and names a mapping without MaximumConcurrency', () => {
    const plan = concurrencyPlan({
      Resources: {
        WorkerFunctionABCDEF12: fn(),
        M1: mapping('WorkerFunctionABCDEF12', 3),
        M2: mapping('WorkerFunctionABCDEF12', 4),
      },
    });
    expect(plan.parts).toEqual([
      {
        part: 'Worker',
        logicalId: 'WorkerFunctionABCDEF12',
        concurrency: 7,
        bound: 'event sources',
        eventSourceMaximum: 7,
      },
    ]);
    expect(concurrencyPlan({ Resources: { W: fn(), M: mapping('W') } }).problems).toEqual([
      'W has an SQS event source without MaximumConcurrency',
    ]);
  });

  it('bounds a stream mapping (one copy per shard) by its function’s reserved concurrency, and refuses one without', () => {
    const stream = (target: string) => ({
      Type: 'AWS::Lambda::EventSourceMapping',
      Properties: { FunctionName: { Ref: target }, StartingPosition: 'TRIM_HORIZON' },
    });
    const plan = concurrencyPlan({
      Resources: { CounterFunctionABCDEF12: fn(4), S: stream('CounterFunctionABCDEF12') },
    });
    expect([plan.total, plan.problems]).toEqual([4, []]);
    expect(concurrencyPlan({ Resources: { C: fn(), S: stream('C') } }).problems).toEqual([
      'C reads a stream and has no reserved concurrency: give it one',
    ]);
  });

  it('refuses a reservation below what the function’s mappings may use (Lambda would throttle received messages)', () => {
    const plan = concurrencyPlan({ Resources: { W: fn(4), M: mapping('W', 5) } });
    expect(plan.total).toBe(4);
    expect(plan.problems).toEqual([
      'W reserves 4 but its event sources may use 5: received messages would be throttled',
    ]);
  });
});
