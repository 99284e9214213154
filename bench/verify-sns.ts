/**
 * §1 SNS verification cost per message: our whole per-message check (`verifySnsMessageWithKey`: JSON
 * parse with duplicate-key refusal, envelope shape, string-to-sign, strict base64, RSA verify) next to
 * a bare `crypto.verify` over the precomputed string-to-sign, same key, same signature, same run.
 */
import { randomUUID, verify, X509Certificate } from 'node:crypto';
import { parseSnsEnvelope } from '../lambdas/core/providers/ses/sns/envelope.js';
import { type SnsSignatureVersion, verifySnsMessageWithKey } from '../lambdas/core/providers/ses/sns/signature.js';
import { stringToSign } from '../lambdas/core/providers/ses/sns/string-to-sign.js';
import { createSelfSignedCertificate } from '../lib/demo/self-signed-certificate.js';
import { DEMO_TOPIC_ARN, demoSigningCertUrl, sesDemoPayload, signSnsMessage } from '../lib/demo/ses.js';
import { type Case, resultOf, runInterleaved } from './lib/microbench.js';
import { fmt, fmtBytes, fmtRatio, pairedRatio } from './lib/stats.js';
import type { SectionResult, Verdict } from './lib/types.js';

const TARGET_RATIO = 1.5;
const VERSIONS: readonly SnsSignatureVersion[] = ['1', '2'];

export async function benchSnsVerification(): Promise<SectionResult> {
  const started = performance.now();
  const certificate = createSelfSignedCertificate();
  // The key exactly as a CertificateSource hands it over: taken from the parsed certificate.
  const key = new X509Certificate(certificate.certificatePem).publicKey;
  const nowMs = Date.now();

  const cases: Case[] = [];
  const sizes = new Map<SnsSignatureVersion, number>();
  for (const version of VERSIONS) {
    const certUrl = demoSigningCertUrl(DEMO_TOPIC_ARN, `SimpleNotificationService-${'0'.repeat(32)}.pem`);
    const message = signSnsMessage(
      {
        Type: 'Notification',
        MessageId: randomUUID(),
        TopicArn: DEMO_TOPIC_ARN,
        Message: JSON.stringify(sesDemoPayload('hard_bounce', 'bench@example.com', nowMs)),
        Timestamp: new Date(nowMs).toISOString(),
        SigningCertURL: certUrl,
        UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${DEMO_TOPIC_ARN}:bench`,
      },
      certificate.privateKey,
      version,
    );
    const body = JSON.stringify(message);
    sizes.set(version, Buffer.byteLength(body));
    const digest = version === '1' ? 'sha1' : 'sha256';
    const data = Buffer.from(stringToSign(parseSnsEnvelope(body)), 'utf8');
    const signature = Buffer.from(message.Signature!, 'base64');

    // Both sides must actually succeed, or we would be timing a fast rejection.
    if (!verify(digest, data, key, signature)) throw new Error(`SNS v${version}: bare verify failed`);
    verifySnsMessageWithKey(body, key);

    cases.push(
      { name: `ours-${version}`, fn: () => verifySnsMessageWithKey(body, key) },
      { name: `raw-${version}`, fn: () => verify(digest, data, key, signature) },
      { name: `parse-${version}`, fn: () => stringToSign(parseSnsEnvelope(body)) },
    );
  }

  const rounds = 21;
  const results = await runInterleaved(cases, { rounds, batchMs: 20, warmupMs: 150 });

  const rows: string[][] = [];
  const verdicts: Verdict[] = [];
  for (const version of VERSIONS) {
    const ours = resultOf(results, `ours-${version}`);
    const raw = resultOf(results, `raw-${version}`);
    const parse = resultOf(results, `parse-${version}`);
    const ratio = pairedRatio(ours.usPerOp, raw.usPerOp);
    const meets = ratio <= TARGET_RATIO;
    rows.push([
      `v${version} (${version === '1' ? 'SHA1withRSA' : 'SHA256withRSA'}), ${fmtBytes(sizes.get(version)!)} body`,
      fmt(ours.medianUs),
      fmt(raw.medianUs),
      fmt(parse.medianUs),
      fmtRatio(ratio),
      `≤ ${fmtRatio(TARGET_RATIO)}`,
      meets ? 'meets' : 'misses',
    ]);
    verdicts.push({
      subject: `SNS v${version}: verifySnsMessageWithKey / crypto.verify`,
      target: `≤ ${fmtRatio(TARGET_RATIO)}`,
      measured: fmtRatio(ratio),
      meets,
    });
  }

  return {
    id: 'sns',
    title: '1. SNS signature verification, per message',
    method: [
      '**ours** = `verifySnsMessageWithKey(body, key)`: strict JSON parse (duplicate keys refused), envelope shape checks, string-to-sign, strict base64 decode of `Signature`, RSA-2048 `crypto.verify`.',
      '**crypto.verify** = bare `crypto.verify(digest, stringToSign, key, signature)` over a string-to-sign and signature decoded once, before timing.',
      '**parse + string-to-sign** = the non-cryptographic part of ours alone (no verify): where the difference goes.',
      'Same key (a cached `KeyObject` from a self-signed RSA-2048 certificate, as the certificate source returns it) and the same SES bounce notification for all three.',
      `${rounds} interleaved rounds of ~20 ms batches per case; µs/op are medians over rounds; the ratio is the median of per-round ratios (ours / crypto.verify).`,
    ],
    tables: [
      {
        columns: [
          'SignatureVersion',
          'ours µs/op',
          'crypto.verify µs/op',
          'parse + string-to-sign µs/op',
          'ratio',
          'target',
          'verdict',
        ],
        rows,
      },
    ],
    verdicts,
    notes: [],
    wallMs: performance.now() - started,
  };
}
