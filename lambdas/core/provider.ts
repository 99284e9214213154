/**
 * The provider port: one module per provider turns one raw request into zero or more normalized
 * events, after authenticating it. Everything a module needs from outside arrives in ProviderDeps,
 * so every module is pure and testable with an injected clock, keys and stores.
 */
import type { KeyObject } from 'node:crypto';
import type { NormalizedEvent } from './event.js';
import type { WebhookRequest } from './request.js';
import type { SettingDeclaration, Settings } from './settings.js';
import type { Clock, Window } from './time.js';

/**
 * Single-use token claims (Mailgun). Backed by a DynamoDB conditional put: never by process memory,
 * which would forget on every cold start and is not shared between concurrent Lambdas.
 */
export interface NonceStore {
  /**
   * True when this call claimed the token, or when it was claimed before with the *same* fingerprint
   * (a hash of the exact body): that is the provider retrying a request we failed to store, which must
   * still get through. False when the token was claimed with a different body (a replay carrying
   * forged data) and the claim has not expired.
   */
  claim(namespace: string, token: string, fingerprint: string, expiresAtMs: number): Promise<boolean>;
}

/** SNS signing certificates, already validated by the caller's URL gate. Returns the certificate's public key. */
export interface CertificateSource {
  get(url: string): Promise<KeyObject>;
}

/** SNS control messages: not email events, but the edge acts on them after verification. */
export type ControlMessage =
  | { type: 'SubscriptionConfirmation'; topicArn: string; token: string; messageId: string }
  | { type: 'UnsubscribeConfirmation'; topicArn: string; messageId: string };

export interface Receipt {
  events: NormalizedEvent[];
  control?: ControlMessage;
}

/**
 * Per-request options that no HTTP request can carry: the HTTP handlers never pass them. Only the
 * operator's `ratchet ses redrive` does, for messages it read from the stack's own SNS dead-letter queue.
 */
export interface ReceiveOptions {
  /**
   * The message was read from the SES dead-letter queue, which only SNS (the HTTPS subscription's
   * dead-letter queue, policy limited to our topics) and the SES feed (itself fed only by those topics)
   * write to: it is old by design (SNS gave up on it, or it waited out its receives), so the SNS
   * freshness window's age limit is waived. The signature, the topic allowlist and the certificate
   * checks still apply.
   */
  readonly fromSnsDeadLetterQueue?: boolean;
}

export interface WebhookProvider {
  readonly name: string;
  /** Authenticates first (on the raw bytes), then parses. Throws a WebhookError subclass on rejection. */
  receive(request: WebhookRequest, options?: ReceiveOptions): Promise<Receipt>;
}

export interface ProviderDeps {
  /**
   * The provider's current credentials, every one of which verifies (rotation overlap):
   * signing secrets or public keys; for SES, the allowed SNS topic ARNs. Never empty: an
   * unconfigured provider is not constructed at all and its route answers 404.
   */
  credentials: readonly string[];
  now: Clock;
  nonces: NonceStore;
  certificates: CertificateSource;
  /** Non-secret settings (time windows, IP allowlists) as environment-style strings; each module parses its own. */
  settings: Readonly<Record<string, string | undefined>>;
}

/** How long a signed request stays acceptable, and the settings that say so (named in error messages). */
export interface SignatureWindow {
  window: Window;
  variables: readonly string[];
}

/**
 * A non-secret setting a provider reads from `ProviderDeps.settings`. Declared, so that what wires
 * settings iterates the registry instead of naming providers: the stack sets the edge's environment
 * from every `contextKey`. (The local runtime hands the core its whole environment, so every declared
 * variable reaches the provider there as it is.)
 */
export type ProviderSetting = SettingDeclaration;

export interface ProviderDefinition {
  /** The route segment: `POST /webhooks/<name>`. */
  readonly name: string;
  /** Where the local runtime reads the comma-separated credentials list. */
  readonly credentialsVariable: string;
  /** What the credentials are, in a few words, where "the `<name>` credentials" says too little (docs/configuration.md). */
  readonly describeCredentials?: string;
  /** Where the AWS stack passes the Secrets Manager ARN holding the same list (SES uses the topic allowlist instead). */
  readonly secretArnVariable?: string;
  /**
   * The freshness window `create()` uses for these settings. Absent when nothing signed carries a time
   * (Postmark). The inbox must keep dedup keys longer than every window, or a replay inside one would
   * be admitted again (see inbox-retention.ts).
   */
  signatureWindow?(settings: Settings): SignatureWindow;
  /** Every setting `create()` and `signatureWindow()` read; none is read undeclared. */
  readonly settings: readonly ProviderSetting[];
  /**
   * The provider's event id differs between copies of one event (SendGrid's retries, SES published
   * twice through SNS), so the edge keys its events by content instead (pipeline/content-key.ts).
   */
  readonly keysByContent?: boolean;
  create(deps: ProviderDeps): WebhookProvider;
}
