/**
 * Demo signers: for each provider, how a sender would sign a sample event. `npm run send` uses them
 * against the local stack, and tests use them to sign fixtures at test time. Nothing here is a secret:
 * `npm start` generates fresh demo credentials per machine under `.data/`, none are committed.
 */
import type { ActionableKind } from '../../lambdas/core/event.js';

export interface DemoCredentials {
  /** What goes into the provider's credentials list (what its environment variable would hold). */
  credential: string;
  /** What the sender signs with: a private key PEM, or the shared secret itself. */
  signingSecret: string;
  /** SES only: the certificate to pin, named like the SigningCertURL's basename. */
  pinnedCertificate?: { fileName: string; pem: string };
}

export interface SignedDemoRequest {
  headers: Record<string, string>;
  body: string;
}

export interface DemoSigner {
  readonly provider: string;
  createCredentials(): DemoCredentials;
  sign(kind: ActionableKind, email: string, credentials: DemoCredentials, nowMs: number): SignedDemoRequest;
}
