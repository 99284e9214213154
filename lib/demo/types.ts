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

/**
 * A topic-scoped demo event: `unsubscribe` with a topic is a topic opt-out, `subscribe` (which needs
 * one) an opt-in. The topic is the provider's own scope, turned into the canonical name by the edge:
 * SendGrid the ASM group id (`4242` → `sendgrid:group:4242`), SES `topic` or `list:topic` (list
 * `ratchet-demo` by default), Postmark the message stream, Resend the topic id, generic the name.
 */
export interface DemoOptions {
  topic?: string;
}

/** One realistic provider body (or body element) of an actionable kind; throws for a scope the provider cannot express. */
export type SampleEvent = (
  kind: ActionableKind,
  email: string,
  nowMs: number,
  options?: DemoOptions,
) => Record<string, unknown>;

/** The signing headers for an arbitrary body, under a contract that signs an id, a timestamp and the bytes. */
export type BodySigner = (
  secret: string,
  id: string,
  timestamp: string,
  body: string | Buffer,
) => Record<string, string>;

export interface DemoSigner {
  readonly provider: string;
  /** How this provider names a topic on the command line (`group` for SendGrid), or absent: no topics (Mailgun). */
  readonly topicOption?: 'group' | 'topic';
  createCredentials(): DemoCredentials;
  /** Throws (Error) for a `subscribe` without a topic, or a topic on a provider without topics. */
  sign(
    kind: ActionableKind,
    email: string,
    credentials: DemoCredentials,
    nowMs: number,
    options?: DemoOptions,
  ): SignedDemoRequest;
}

/** Credentials where the sender signs with the very value the receiver is configured with (an HMAC key, a Basic pair). */
export function sharedSecret(secret: string): DemoCredentials {
  return { credential: secret, signingSecret: secret };
}

/** A provider's timestamp header: whole seconds since the epoch, as text. */
export function unixSeconds(nowMs: number): string {
  return String(Math.floor(nowMs / 1000));
}

/** The demo's shared precondition: which combinations a provider can express. */
export function assertDemoScope(
  signer: Pick<DemoSigner, 'provider' | 'topicOption'>,
  kind: ActionableKind,
  options: DemoOptions = {},
): void {
  if (options.topic !== undefined && signer.topicOption === undefined)
    throw new Error(`${signer.provider} has no topics`);
  if (options.topic !== undefined && kind !== 'unsubscribe' && kind !== 'subscribe')
    throw new Error('only unsubscribe and subscribe take a topic');
  if (kind === 'subscribe' && options.topic === undefined)
    throw new Error(`subscribe needs --${signer.topicOption ?? 'topic'}`);
}
