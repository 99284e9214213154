/**
 * Every setting a provider reads is declared on its definition (ProviderDefinition.settings), and
 * every declared one is read: the stack and the local runtime wire settings from those declarations
 * alone, so an undeclared read would be a setting no deployment can set.
 */
import { describe, expect, it } from 'vitest';
import { RUNTIME_VARIABLE } from '../../../lambdas/adapters/environment.js';
import { INBOX_TTL_VARIABLE } from '../../../lambdas/core/inbox-ttl.js';
import type { ProviderDefinition, ProviderDeps } from '../../../lambdas/core/provider.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';
import { UNSUBSCRIBE_PROVIDER } from '../../../lambdas/core/unsubscribe/provider.js';
import { DEMO_SIGNERS } from '../../../lib/demo/index.js';

/**
 * Runtime variables a provider may read without declaring them: the environment contract wires them
 * into every edge (lib/constructs/environments.ts), so every deployment sets them. SES derives its
 * age limit's default from the inbox TTL.
 */
const RUNTIME_WIRED = new Set<string>([INBOX_TTL_VARIABLE]);

const UNUSED = {
  claim: () => Promise.reject(new Error('unused')),
  get: () => Promise.reject(new Error('unused')),
};

function credentialsFor(definition: ProviderDefinition): string[] {
  if (definition === UNSUBSCRIBE_PROVIDER) return ['x'.repeat(64)];
  const signer = DEMO_SIGNERS.find((s) => s.provider === definition.name);
  if (!signer) throw new Error(`no demo signer for ${definition.name}`);
  return [signer.createCredentials().credential];
}

/** The names `create()` and `signatureWindow()` look up, through a Proxy that records every read. */
function settingsRead(definition: ProviderDefinition): string[] {
  const read = new Set<string>();
  const settings = new Proxy({} as Record<string, string | undefined>, {
    get: (target, key) => {
      if (typeof key === 'string') read.add(key);
      return Reflect.get(target, key);
    },
    has: (target, key) => {
      if (typeof key === 'string') read.add(key);
      return Reflect.has(target, key);
    },
    ownKeys: () => {
      throw new Error(`${definition.name} enumerates its settings instead of reading declared ones`);
    },
  });
  const deps: ProviderDeps = {
    credentials: credentialsFor(definition),
    now: () => 0,
    nonces: UNUSED,
    certificates: UNUSED,
    settings,
  };
  definition.signatureWindow?.(settings);
  definition.create(deps);
  return [...read].sort();
}

describe('provider settings are declared', () => {
  it.each([...PROVIDERS, UNSUBSCRIBE_PROVIDER].map((definition) => [definition.name, definition] as const))(
    '%s reads exactly the settings it declares',
    (_name, definition) => {
      const declared = definition.settings.map((s) => s.variable).sort();
      expect(settingsRead(definition).filter((name) => !RUNTIME_WIRED.has(name))).toEqual(declared);
    },
  );

  it('the runtime variables a provider may read undeclared are runtime variables, and ses reads INBOX_TTL_DAYS', () => {
    for (const name of RUNTIME_WIRED) expect(Object.values(RUNTIME_VARIABLE)).toContain(name);
    expect(settingsRead(PROVIDERS.find((p) => p.name === 'ses')!)).toContain(INBOX_TTL_VARIABLE);
  });

  it('declares each variable once across the registry, each with a description', () => {
    const all = PROVIDERS.flatMap((p) => p.settings);
    expect(new Set(all.map((s) => s.variable)).size).toBe(all.length);
    for (const setting of all) expect(setting.describe.length).toBeGreaterThan(10);
  });

  it('signature windows name only declared settings', () => {
    for (const definition of PROVIDERS) {
      const named = definition.signatureWindow?.({}).variables ?? [];
      const declared = definition.settings.map((s) => s.variable);
      for (const variable of named) expect(declared).toContain(variable);
    }
  });
});
