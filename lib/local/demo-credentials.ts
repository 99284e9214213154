/**
 * Demo credentials for `npm start`: generated once per machine under `.data/` (never committed, never
 * shared), and used only for providers whose environment variable is unset, so `npm run send` works
 * out of the box. The AWS stack never does this: there, an unconfigured provider answers 404.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { findProvider } from '../../lambdas/core/providers/index.js';
import { DEMO_SIGNERS } from '../demo/index.js';
import type { DemoCredentials } from '../demo/types.js';

export type DemoCredentialSet = Record<string, DemoCredentials>;

export function demoCredentialsPath(dataDir: string): string {
  return join(dataDir, 'demo-credentials.json');
}

/**
 * Loads the demo credentials, generating (and persisting) any provider's that are missing: taken from
 * `planned` where it has them (the set `npm start` checked its settings with), so they are made once.
 */
export function ensureDemoCredentials(dataDir: string, planned: DemoCredentialSet = {}): DemoCredentialSet {
  mkdirSync(dataDir, { recursive: true });
  const file = demoCredentialsPath(dataDir);
  const existing: DemoCredentialSet = existsSync(file)
    ? (JSON.parse(readFileSync(file, 'utf8')) as DemoCredentialSet)
    : {};
  const changed = fillMissing(existing, planned);
  // Private demo keys: readable by the owner only.
  if (changed) writeFileSync(file, JSON.stringify(existing, null, 2), { mode: 0o600 });
  return existing;
}

/**
 * The demo credentials as `ensureDemoCredentials` would leave them, written nowhere: what `npm start`
 * checks its settings with before it writes anything. A file it cannot read counts as none (the start
 * proper, under the lock, reads it again).
 */
export function peekDemoCredentials(dataDir: string): DemoCredentialSet {
  let existing: DemoCredentialSet = {};
  try {
    existing = JSON.parse(readFileSync(demoCredentialsPath(dataDir), 'utf8')) as DemoCredentialSet;
  } catch {
    existing = {};
  }
  fillMissing(existing);
  return existing;
}

function fillMissing(set: DemoCredentialSet, planned: DemoCredentialSet = {}): boolean {
  let changed = false;
  for (const signer of DEMO_SIGNERS) {
    if (!set[signer.provider]) {
      set[signer.provider] = planned[signer.provider] ?? signer.createCredentials();
      changed = true;
    }
  }
  return changed;
}

export interface DemoDefaults {
  settings: Record<string, string | undefined>;
  /** Providers running on demo credentials, to announce loudly at start-up. */
  usingDemo: string[];
}

/**
 * Fills in demo credentials for every provider whose variable is unset; SES also gets its demo cert
 * pinned. `dryRun`: nothing is written, and SNS_CERT_DIR stays unset where the demo certificate would
 * be pinned (its directory does not exist yet, and is Ratchet's own, so there is nothing to check).
 */
export function applyDemoDefaults(
  env: Record<string, string | undefined>,
  dataDir: string,
  demo: DemoCredentialSet,
  options: { dryRun?: boolean } = {},
): DemoDefaults {
  const settings = { ...env };
  const usingDemo: string[] = [];
  for (const signer of DEMO_SIGNERS) {
    const definition = findProvider(signer.provider);
    const credentials = demo[signer.provider];
    if (!definition || !credentials || settings[definition.credentialsVariable]) continue;
    settings[definition.credentialsVariable] = credentials.credential;
    usingDemo.push(signer.provider);
    if (credentials.pinnedCertificate && !settings.SNS_CERT_DIR && !options.dryRun) {
      const dir = join(dataDir, 'sns-certs');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, credentials.pinnedCertificate.fileName), credentials.pinnedCertificate.pem);
      settings.SNS_CERT_DIR = dir;
    }
  }
  return { settings, usingDemo };
}
