/**
 * §2 Verification cost per request, every provider. For each: our `provider.receive(request)` (built
 * through the PROVIDERS registry with an injected clock, an always-accepting in-memory NonceStore and,
 * for SES, a CertificateSource returning the cached KeyObject), the provider's exported verify-only
 * function, and bare node:crypto on cached keys doing only the signature check. Plus the two reference
 * libraries, @sendgrid/eventwebhook and standardwebhooks, on the very same requests.
 */
import { createHash, createHmac, timingSafeEqual, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { Webhook } from 'standardwebhooks';
import type { ActionableKind } from '../lambdas/core/event.js';
import type { CertificateSource, NonceStore, ProviderDeps } from '../lambdas/core/provider.js';
import { verifyGenericWebhook, genericSecretKeys } from '../lambdas/core/providers/generic.js';
import { findProvider } from '../lambdas/core/providers/index.js';
import { mailgunKeyBytes, verifyMailgunSignature } from '../lambdas/core/providers/mailgun-signature.js';
import { postmarkCredentialDigests, verifyPostmarkBasicAuth } from '../lambdas/core/providers/postmark.js';
import { parseSendgridPublicKey, verifySendgridSignature } from '../lambdas/core/providers/sendgrid-signature.js';
import { decodeStandardSecrets, verifyStandardWebhook } from '../lambdas/core/providers/standard-webhooks.js';
import { lowerCaseHeaders, type WebhookRequest } from '../lambdas/core/request.js';
import { parseSnsEnvelope } from '../lambdas/core/sns/envelope.js';
import { stringToSign } from '../lambdas/core/sns/string-to-sign.js';
import { verifySnsMessageWithKey } from '../lambdas/core/sns/verify.js';
import { SYMMETRIC_FIVE_MINUTES } from '../lambdas/core/time.js';
import { findDemoSigner } from '../lib/demo/index.js';
import type { DemoCredentials, SignedDemoRequest } from '../lib/demo/types.js';
import { resultOf, runInterleaved, type Case, type CaseResult } from './lib/microbench.js';
import { fmt, fmtBytes, fmtRatio, pairedRatio } from './lib/stats.js';
import type { SectionResult, Verdict } from './lib/types.js';

const TARGET_RATIO = 1.5;
const KIND: ActionableKind = 'hard_bounce';
const EMAIL = 'bench@example.com';

interface Fixture {
  provider: string;
  bodyBytes: number;
  receive: Case;
  verifyOnly: Case & { label: string };
  raw: Case & { label: string };
  /** Reference libraries verifying the same request. */
  libraries: Array<Case & { label: string }>;
}

/** Mailgun's token claim is I/O (a DynamoDB conditional put) and left out of this CPU-cost comparison. */
const ACCEPT_ALL_NONCES: NonceStore = { claim: async () => true };

function toRequest(signed: SignedDemoRequest): WebhookRequest {
  return { body: Buffer.from(signed.body, 'utf8'), headers: lowerCaseHeaders(signed.headers), sourceIp: '127.0.0.1' };
}

function signed(provider: string, nowMs: number): { credentials: DemoCredentials; signed: SignedDemoRequest; request: WebhookRequest } {
  const signer = findDemoSigner(provider);
  if (!signer) throw new Error(`no demo signer for ${provider}`);
  const credentials = signer.createCredentials();
  const request = signer.sign(KIND, EMAIL, credentials, nowMs);
  return { credentials, signed: request, request: toRequest(request) };
}

function build(provider: string, credentials: DemoCredentials, now: () => number, certificates?: CertificateSource) {
  const definition = findProvider(provider);
  if (!definition) throw new Error(`provider ${provider} is not in the registry`);
  const deps: ProviderDeps = {
    credentials: [credentials.credential],
    now,
    nonces: ACCEPT_ALL_NONCES,
    certificates: certificates ?? { get: async () => Promise.reject(new Error('no certificates here')) },
    settings: {},
  };
  return definition.create(deps);
}

function header(request: WebhookRequest, name: string): string {
  const value = request.headers[name];
  if (value === undefined) throw new Error(`fixture lacks ${name}`);
  return value;
}

function assertTrue(value: unknown, what: string): void {
  if (value !== true) throw new Error(`${what} did not verify the fixture`);
}

function sesFixture(nowMs: number): Fixture {
  const { credentials, request, signed: raw } = signed('ses', nowMs);
  const key: KeyObject = new X509Certificate(credentials.pinnedCertificate!.pem).publicKey;
  const provider = build('ses', credentials, () => nowMs + 1000, { get: async () => key });
  const body = raw.body;
  const envelope = parseSnsEnvelope(body);
  const data = Buffer.from(stringToSign(envelope), 'utf8');
  const signature = Buffer.from(envelope.Signature, 'base64');
  assertTrue(verify('sha256', data, key, signature), 'bare RSA verify');
  return {
    provider: 'ses',
    bodyBytes: request.body.length,
    receive: { name: 'receive', fn: () => provider.receive(request) },
    verifyOnly: { name: 'verify', label: '`verifySnsMessageWithKey`', fn: () => verifySnsMessageWithKey(body, key) },
    raw: { name: 'raw', label: 'RSA-2048 `crypto.verify` (SHA-256)', fn: () => verify('sha256', data, key, signature) },
    libraries: [],
  };
}

function sendgridFixture(nowMs: number): Fixture {
  const { credentials, request, signed: raw } = signed('sendgrid', nowMs);
  const keys = [parseSendgridPublicKey(credentials.credential)];
  const provider = build('sendgrid', credentials, () => nowMs + 1000);
  const timestamp = header(request, 'x-twilio-email-event-webhook-timestamp');
  const signatureB64 = header(request, 'x-twilio-email-event-webhook-signature');
  const message = Buffer.concat([Buffer.from(timestamp, 'utf8'), request.body]);
  const signature = Buffer.from(signatureB64, 'base64');
  const key = keys[0]!;
  assertTrue(verify('sha256', message, key, signature), 'bare ECDSA verify');
  const library = new EventWebhook();
  const libraryKey = library.convertPublicKeyToECDSA(credentials.credential);
  assertTrue(library.verifySignature(libraryKey, raw.body, signatureB64, timestamp), '@sendgrid/eventwebhook');
  return {
    provider: 'sendgrid',
    bodyBytes: request.body.length,
    receive: { name: 'receive', fn: () => provider.receive(request) },
    verifyOnly: { name: 'verify', label: '`verifySendgridSignature`', fn: () => verifySendgridSignature(request, keys) },
    raw: { name: 'raw', label: 'ECDSA P-256 `crypto.verify`', fn: () => verify('sha256', message, key, signature) },
    libraries: [
      {
        name: 'lib-sendgrid',
        label: '`@sendgrid/eventwebhook` `verifySignature`',
        fn: () => library.verifySignature(libraryKey, raw.body, signatureB64, timestamp),
      },
    ],
  };
}

function mailgunFixture(nowMs: number): Fixture {
  const { credentials, request, signed: raw } = signed('mailgun', nowMs);
  const keys = mailgunKeyBytes([credentials.credential]);
  const provider = build('mailgun', credentials, () => nowMs + 1000);
  const parsed = JSON.parse(raw.body) as Record<string, unknown>;
  const sig = parsed.signature as { timestamp: string; token: string; signature: string };
  const signedText = sig.timestamp + sig.token;
  const expected = Buffer.from(sig.signature, 'hex');
  const key = keys[0]!;
  assertTrue(timingSafeEqual(createHmac('sha256', key).update(signedText).digest(), expected), 'bare HMAC');
  return {
    provider: 'mailgun',
    bodyBytes: request.body.length,
    receive: { name: 'receive', fn: () => provider.receive(request) },
    verifyOnly: {
      name: 'verify',
      label: '`verifyMailgunSignature` (on the already-parsed body)',
      fn: () => verifyMailgunSignature(parsed, raw.body, keys),
    },
    raw: {
      name: 'raw',
      label: 'HMAC-SHA256(timestamp+token) + `timingSafeEqual`',
      fn: () => timingSafeEqual(createHmac('sha256', key).update(signedText).digest(), expected),
    },
    libraries: [],
  };
}

function postmarkFixture(nowMs: number): Fixture {
  const { credentials, request } = signed('postmark', nowMs);
  const digests = postmarkCredentialDigests([credentials.credential]);
  const provider = build('postmark', credentials, () => nowMs + 1000);
  const token = header(request, 'authorization').slice('Basic '.length);
  const digest = digests[0]!;
  const bare = () => timingSafeEqual(createHash('sha256').update(Buffer.from(token, 'base64')).digest(), digest);
  assertTrue(bare(), 'bare Basic-auth digest compare');
  return {
    provider: 'postmark',
    bodyBytes: request.body.length,
    receive: { name: 'receive', fn: () => provider.receive(request) },
    verifyOnly: { name: 'verify', label: '`verifyPostmarkBasicAuth`', fn: () => verifyPostmarkBasicAuth(request, digests) },
    raw: { name: 'raw', label: 'base64 decode + SHA-256 + `timingSafeEqual`', fn: bare },
    libraries: [],
  };
}

function standardFixture(): Fixture {
  // standardwebhooks checks against Date.now() (±5 min), so this one is signed with the real clock.
  const nowMs = Date.now();
  const { credentials, request, signed: raw } = signed('standard', nowMs);
  const keys = decodeStandardSecrets([credentials.credential]);
  const provider = build('standard', credentials, () => nowMs + 1000);
  const id = header(request, 'webhook-id');
  const timestamp = header(request, 'webhook-timestamp');
  const presented = Buffer.from(header(request, 'webhook-signature').slice('v1,'.length), 'base64');
  const key = keys[0]!;
  const prefix = `${id}.${timestamp}.`;
  const bare = () => timingSafeEqual(createHmac('sha256', key).update(prefix).update(request.body).digest(), presented);
  assertTrue(bare(), 'bare HMAC');
  const library = new Webhook(credentials.credential);
  library.verify(raw.body, raw.headers);
  return {
    provider: 'standard',
    bodyBytes: request.body.length,
    receive: { name: 'receive', fn: () => provider.receive(request) },
    verifyOnly: {
      name: 'verify',
      label: '`verifyStandardWebhook`',
      fn: () => verifyStandardWebhook(request, keys, nowMs + 1000, SYMMETRIC_FIVE_MINUTES),
    },
    raw: { name: 'raw', label: 'HMAC-SHA256 over id.timestamp.body + `timingSafeEqual`', fn: bare },
    libraries: [
      {
        name: 'lib-standard',
        label: '`standardwebhooks` `Webhook.verify` (also JSON-parses)',
        fn: () => library.verify(raw.body, raw.headers),
      },
    ],
  };
}

function genericFixture(nowMs: number): Fixture {
  const { credentials, request } = signed('generic', nowMs);
  const keys = genericSecretKeys([credentials.credential]);
  const provider = build('generic', credentials, () => nowMs + 1000);
  const id = header(request, 'x-event-id');
  const timestamp = header(request, 'x-webhook-timestamp');
  const presented = Buffer.from(header(request, 'x-webhook-signature').slice('v1='.length), 'hex');
  const key = keys[0]!;
  const prefix = `${timestamp}.${id}.`;
  const bare = () => timingSafeEqual(createHmac('sha256', key).update(prefix).update(request.body).digest(), presented);
  assertTrue(bare(), 'bare HMAC');
  return {
    provider: 'generic',
    bodyBytes: request.body.length,
    receive: { name: 'receive', fn: () => provider.receive(request) },
    verifyOnly: {
      name: 'verify',
      label: '`verifyGenericWebhook`',
      fn: () => verifyGenericWebhook(request, keys, nowMs + 1000, SYMMETRIC_FIVE_MINUTES),
    },
    raw: { name: 'raw', label: 'HMAC-SHA256 over timestamp.id.body + `timingSafeEqual`', fn: bare },
    libraries: [],
  };
}

export async function benchProviderVerification(): Promise<SectionResult> {
  const started = performance.now();
  const nowMs = Date.now();
  const fixtures = [
    sesFixture(nowMs),
    sendgridFixture(nowMs),
    mailgunFixture(nowMs),
    postmarkFixture(nowMs),
    standardFixture(),
    genericFixture(nowMs),
  ];
  const rounds = 21;

  const rows: string[][] = [];
  const libraryRows: string[][] = [];
  const verdicts: Verdict[] = [];
  for (const fixture of fixtures) {
    // Each receive must really accept its request before we time it.
    const receipt = await fixture.receive.fn();
    if ((receipt as { events: unknown[] }).events.length !== 1) throw new Error(`${fixture.provider}: expected one event`);
    fixture.verifyOnly.fn();

    const results = await runInterleaved([fixture.receive, fixture.verifyOnly, fixture.raw, ...fixture.libraries], {
      rounds,
      batchMs: 15,
      warmupMs: 100,
    });
    const receive = resultOf(results, 'receive');
    const verifyOnly = resultOf(results, 'verify');
    const raw = resultOf(results, 'raw');
    const receiveRatio = pairedRatio(receive.usPerOp, raw.usPerOp);
    const verifyRatio = pairedRatio(verifyOnly.usPerOp, raw.usPerOp);
    rows.push(
      row(fixture, '`receive`', receive, raw, receiveRatio, fmt(receive.medianUs - verifyOnly.medianUs)),
      row(fixture, fixture.verifyOnly.label, verifyOnly, raw, verifyRatio, ''),
    );
    verdicts.push(
      verdict(`${fixture.provider}: receive (verify + parse + normalize) / bare signature check`, receiveRatio),
      verdict(`${fixture.provider}: verify-only / bare signature check`, verifyRatio),
    );
    for (const library of fixture.libraries) {
      const lib = resultOf(results, library.name);
      libraryRows.push(
        libraryRow(fixture.provider, '`receive`', receive, library.label, lib),
        libraryRow(fixture.provider, fixture.verifyOnly.label, verifyOnly, library.label, lib),
      );
    }
  }

  return {
    id: 'providers',
    title: '2. Verification cost per request, every provider',
    method: [
      'One-event requests made by each provider\'s demo signer (a `hard_bounce`), signed for the injected clock (`now` = signing time + 1 s).',
      '**`receive`** = `findProvider(name).create(deps).receive(request)`: authentication *and* strict JSON parsing, mapping and normalization into a NormalizedEvent. Deps: injected clock, an in-memory NonceStore that always accepts (Mailgun\'s real token claim is I/O, one more conditional PutItem on the inbox table per request, and is left out here; none of the pipeline sections below sends Mailgun traffic), and for SES a CertificateSource that returns the cached KeyObject.',
      '**verify-only** = the provider\'s exported verification function, the per-request crypto cost without the mapping.',
      '**bare signature check** = node:crypto on cached keys doing only the signature check, inputs precomputed: ECDSA `crypto.verify` (SendGrid), HMAC-SHA256 + `timingSafeEqual` (Mailgun, Standard Webhooks, generic), base64 decode + SHA-256 + `timingSafeEqual` of the Basic credentials (Postmark), RSA `crypto.verify` (SES).',
      `${rounds} interleaved rounds of ~15 ms batches per case; µs/op are medians over rounds; ratios are medians of per-round ratios.`,
      '**beyond verify-only** = `receive` − verify-only, medians: what parsing the body, mapping and normalizing cost on top of authentication (for SES this includes parsing the SES message inside the SNS envelope; for Mailgun, whose signature sits in the body, the body parse itself).',
      'For the symmetric schemes the bare check is 1–3 µs, so any parsing at all dominates the `receive` ratio: read those rows as "how much does normalization cost", and the verify-only rows as "is our verification as cheap as the primitive".',
      'These run under tsx, whose esbuild transform uses keepNames: closures created per call get a `__name(…)` wrapper that the minified Lambda bundle does not have. That penalizes our side slightly, never the bare side.',
    ],
    tables: [
      {
        columns: ['provider (body)', 'ours', 'ours µs/op', 'beyond verify-only µs', 'bare signature check', 'bare µs/op', 'ratio', 'target', 'verdict'],
        rows,
      },
      {
        caption: 'Against the reference libraries, same requests, same interleaved rounds (ours / library: below 1 means ours is faster).',
        columns: ['provider', 'ours', 'ours µs/op', 'library', 'library µs/op', 'ours / library', 'library / ours'],
        rows: libraryRows,
      },
    ],
    verdicts,
    notes: [],
    wallMs: performance.now() - started,
  };
}

function row(fixture: Fixture, label: string, ours: CaseResult, raw: CaseResult, ratio: number, beyond: string): string[] {
  return [
    `${fixture.provider} (${fmtBytes(fixture.bodyBytes)})`,
    label,
    fmt(ours.medianUs),
    beyond,
    fixture.raw.label,
    fmt(raw.medianUs),
    fmtRatio(ratio),
    `≤ ${fmtRatio(TARGET_RATIO)}`,
    ratio <= TARGET_RATIO ? 'meets' : 'misses',
  ];
}

function verdict(subject: string, ratio: number): Verdict {
  return { subject, target: `≤ ${fmtRatio(TARGET_RATIO)}`, measured: fmtRatio(ratio), meets: ratio <= TARGET_RATIO };
}

function libraryRow(provider: string, label: string, ours: CaseResult, libraryLabel: string, library: CaseResult): string[] {
  const ratio = pairedRatio(ours.usPerOp, library.usPerOp);
  return [provider, label, fmt(ours.medianUs), libraryLabel, fmt(library.medianUs), ratio < 0.1 ? `${ratio.toFixed(3)}×` : fmtRatio(ratio), fmtRatio(1 / ratio)];
}
