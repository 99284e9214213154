/**
 * §7 One-click unsubscribe tokens, per call: `issueToken` and `verifyToken` (AES-256-GCM, keys
 * derived once and cached) against HMAC-SHA256 of the same input on a cached key, the cheapest
 * signed (but not encrypted) token one could use instead. Target: ≤ 3× the HMAC baseline.
 */
import { createHmac, createSecretKey, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveTokenKeys, issueToken, verifyToken } from '../lambdas/core/unsubscribe/token.js';
import { resultOf, runInterleaved } from './lib/microbench.js';
import { fmt, fmtRatio, pairedRatio } from './lib/stats.js';
import type { SectionResult, Verdict } from './lib/types.js';

const TARGET_RATIO = 3;
const EMAIL = `${'r'.repeat(48)}@example.com`; // 60 characters, the issue's sizing case
const TOPIC = 'newsletter';

export async function benchUnsubscribeTokens(): Promise<SectionResult> {
  const started = performance.now();
  const keys = deriveTokenKeys([randomBytes(32).toString('base64url')]);
  const hmacKey = createSecretKey(randomBytes(32));
  const now = Date.now();
  const token = issueToken({ email: EMAIL, topic: TOPIC }, keys, now);
  if (!verifyToken(token, keys, now).ok) throw new Error('token does not verify');

  // The same input an HMAC token would sign: topic, address, issue time.
  const input = Buffer.from(`${TOPIC}\n${EMAIL}\n${Math.floor(now / 1000)}`, 'utf8');
  const tag = createHmac('sha256', hmacKey).update(input).digest();
  const hmacToken = Buffer.concat([input, tag]).toString('base64url');

  const results = await runInterleaved(
    [
      { name: 'issue', fn: () => issueToken({ email: EMAIL, topic: TOPIC }, keys, now) },
      {
        name: 'hmac-issue',
        fn: () => Buffer.concat([input, createHmac('sha256', hmacKey).update(input).digest()]).toString('base64url'),
      },
      { name: 'verify', fn: () => verifyToken(token, keys, now) },
      {
        name: 'hmac-verify',
        fn: () => {
          const bytes = Buffer.from(hmacToken, 'base64url');
          const body = bytes.subarray(0, bytes.length - 32);
          return timingSafeEqual(
            createHmac('sha256', hmacKey).update(body).digest(),
            bytes.subarray(bytes.length - 32),
          );
        },
      },
    ],
    { rounds: 21, batchMs: 20, warmupMs: 150 },
  );

  const rows: string[][] = [];
  const verdicts: Verdict[] = [];
  for (const op of ['issue', 'verify'] as const) {
    const ours = resultOf(results, op);
    const base = resultOf(results, `hmac-${op}`);
    const ratio = pairedRatio(ours.usPerOp, base.usPerOp);
    const meets = ratio <= TARGET_RATIO;
    rows.push([
      op,
      fmt(ours.medianUs),
      fmt(base.medianUs),
      fmtRatio(ratio),
      `≤ ${fmtRatio(TARGET_RATIO)}`,
      meets ? 'meets' : 'misses',
    ]);
    verdicts.push({
      subject: `unsubscribe token ${op} / HMAC-SHA256`,
      target: `≤ ${fmtRatio(TARGET_RATIO)}`,
      measured: fmtRatio(ratio),
      meets,
    });
  }

  return {
    id: 'unsubscribe-tokens',
    title: '9. One-click unsubscribe tokens, per call',
    method: [
      `**issue** = \`issueToken\`: normalize the address, AES-256-GCM with a fresh 12-byte nonce, base64url (a ${EMAIL.length}-character address, topic \`${TOPIC}\`: ${token.length} characters).`,
      '**verify** = `verifyToken`: strict base64url decode, key-id lookup, AES-256-GCM open, address and topic checks, age check.',
      '**HMAC-SHA256** = the same input (topic, address, issue time) signed with `createHmac` on a cached `KeyObject` and base64url-encoded; its verify decodes, recomputes and compares in constant time. It authenticates but does not hide the address.',
      'Keys derived (HKDF) once and cached, as the edge does. 21 interleaved rounds of ~20 ms batches; µs/op are medians over rounds; the ratio is the median of per-round ratios.',
    ],
    tables: [{ columns: ['operation', 'ours µs/op', 'HMAC-SHA256 µs/op', 'ratio', 'target', 'verdict'], rows }],
    verdicts,
    notes: [],
    wallMs: performance.now() - started,
  };
}
