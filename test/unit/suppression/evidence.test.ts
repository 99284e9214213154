/** Choosing between two versions of one evidence key, and the canonical JSON that breaks the last tie. */
import { describe, expect, it } from 'vitest';
import { canonicalJson, pickEvidence, readEvidence } from '../../../lambdas/core/suppression/evidence.js';
import type { Evidence } from '../../../lambdas/core/suppression/index.js';

describe('canonicalJson', () => {
  it('sorts object keys at every depth, drops undefined values and keeps array order', () => {
    expect(canonicalJson({ c: [{ y: 2, x: 1 }, 'z'], a: undefined, b: null })).toBe(
      '{"b":null,"c":[{"x":1,"y":2},"z"]}',
    );
    expect(canonicalJson([3, 'a', [true]])).toBe('[3,"a",[true]]');
    expect(canonicalJson({})).toBe('{}');
    expect(canonicalJson('s')).toBe('"s"');
  });
});

describe('pickEvidence', () => {
  const early: Evidence = { kind: 'complaint', occurredAt: 1, provider: 'ses' };
  const late: Evidence = { kind: 'complaint', occurredAt: 2, provider: 'ses' };
  const small: Evidence = { kind: 'complaint', occurredAt: 1, provider: 'a' };
  const large: Evidence = { kind: 'complaint', occurredAt: 1, provider: 'b' };

  it('keeps the later-dated version whichever comes first', () => {
    expect(pickEvidence(early, late)).toBe(late);
    expect(pickEvidence(late, early)).toBe(late);
  });

  it('keeps the canonically smaller version on a tie, whichever comes first', () => {
    expect(pickEvidence(small, large)).toBe(small);
    expect(pickEvidence(large, small)).toBe(small);
  });
});

describe('readEvidence', () => {
  it('copies the known string fields and echo, skipping null ones and unknown fields', () => {
    const stored = {
      kind: 'hard_bounce',
      occurredAt: 3,
      provider: 'ses',
      bounceType: 'Permanent',
      status: null,
      scope: 'news',
      echo: true,
      extra: 'x',
    };
    expect(readEvidence(stored)).toStrictEqual({
      kind: 'hard_bounce',
      occurredAt: 3,
      provider: 'ses',
      bounceType: 'Permanent',
      scope: 'news',
      echo: true,
    });
  });
});
