/**
 * Which secrets each function may read, for every function in the stack (sync on, the SES feed on):
 * an explicit expected map, so a new function, or a new grant on an old one, fails here until it is
 * listed. The SES feed verifies SES only, whose "credentials" are public topic ARNs: it reads no secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionLogicalId, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

let s: Synthesized;
beforeAll(() => {
  s = synthesizeTemplate({ syncProviders: 'ses,sendgrid,postmark', postmarkStreams: 'outbound' });
}, 180_000);
afterAll(() => s?.cleanup());

type Json = Record<string, any>;
const asArray = <T>(v: T | T[]): T[] => (Array.isArray(v) ? v : [v]);

/** Function logical id -> the resources its role may call secretsmanager:* on (sorted JSON). */
function secretGrantsByFunction(): Record<string, string[]> {
  const all = resources(s);
  const out: Record<string, string[]> = {};
  for (const [id, fn] of Object.entries(all)) {
    if (fn.Type !== 'AWS::Lambda::Function') continue;
    const roleId = fn.Properties.Role['Fn::GetAtt'][0] as string;
    const arns = new Set<string>();
    for (const policy of Object.values(all)) {
      if (policy.Type !== 'AWS::IAM::Policy') continue;
      if (!(policy.Properties.Roles as Json[]).some((r) => r.Ref === roleId)) continue;
      for (const st of policy.Properties.PolicyDocument.Statement as Json[]) {
        if (!asArray<string>(st.Action).some((a) => a.startsWith('secretsmanager:'))) continue;
        for (const r of asArray(st.Resource)) arns.add(JSON.stringify(r));
      }
    }
    out[id] = [...arns].sort();
  }
  return out;
}

const ref = (construct: { secretArn: string }) => JSON.stringify(s.stack.resolve(construct.secretArn));

describe('secret grants, per function', () => {
  it('edge: every webhook secret and the unsubscribe key; feed, consumer, reputation evaluator and counter, sweeper: none; sync worker: its own API keys', () => {
    const r = s.stack.ratchet;
    const sync = r.sync!;
    const expected: Record<string, string[]> = {
      [functionLogicalId(r.edge)]: [...r.secrets.byProvider.values(), r.secrets.unsubscribe].map(ref).sort(),
      [functionLogicalId(r.feed!)]: [],
      [functionLogicalId(r.consumer)]: [],
      [functionLogicalId(r.reputation.evaluator)]: [],
      [functionLogicalId(r.reputation.counter.handler)]: [],
      [functionLogicalId(sync.worker)]: [...sync.secrets.values()].map(ref).sort(),
      [functionLogicalId(sync.sweeper)]: [],
    };
    expect(secretGrantsByFunction()).toEqual(expected);
    expect(r.secrets.byProvider.size).toBeGreaterThan(1);
    expect(sync.secrets.size).toBe(2);
  });

  it('the feed is told no secret ARN either, so it never asks Secrets Manager', () => {
    const env = resources(s)[functionLogicalId(s.stack.ratchet.feed!)]!.Properties.Environment.Variables;
    expect(Object.keys(env).filter((name) => name.endsWith('_SECRET_ARN'))).toEqual([]);
  });
});
