/** The demo signers are checked against the provider registry: one per provider, under its name. */
import { describe, expect, it } from 'vitest';
import { PROVIDER_NAMES } from '../../../lambdas/core/providers/index.js';
import { DEMO_SIGNER_BY_PROVIDER, DEMO_SIGNERS, findDemoSigner } from '../../../lib/demo/index.js';

describe('demo signers', () => {
  it('has exactly one signer per registered provider, in the registry order', () => {
    expect(DEMO_SIGNERS.map((s) => s.provider)).toEqual(PROVIDER_NAMES);
    expect(Object.keys(DEMO_SIGNER_BY_PROVIDER).sort()).toEqual([...PROVIDER_NAMES].sort());
  });

  it('files each signer under the provider it signs for', () => {
    for (const name of PROVIDER_NAMES) {
      expect(DEMO_SIGNER_BY_PROVIDER[name].provider).toBe(name);
      expect(findDemoSigner(name)).toBe(DEMO_SIGNER_BY_PROVIDER[name]);
    }
    expect(findDemoSigner('nope')).toBeUndefined();
  });
});
