/**
 * One-click unsubscribe tokens: AES-256-GCM over (topic, address), so the URL alone identifies the
 * recipient and the list (RFC 8058 POSTs carry no cookies), cannot be forged, and shows nothing of
 * the address to a mail log, a proxy or a link scanner.
 *
 * Layout, then base64url without padding (a 60-character address and a short topic: ~140 characters):
 *   version (1) | key id (2) | issued at, Unix seconds, big-endian (4) | nonce (12) | ciphertext | tag (16)
 * The first 7 bytes are the GCM additional data, so changing the version, the key id or the issue
 * time breaks the tag like any other byte. The plaintext is `topic length (1) | topic | address`.
 *
 * Keys: each secret in `UNSUBSCRIBE_SECRETS` (comma-separated) derives its own AES key and a 2-byte
 * key id with HKDF-SHA256. The first secret issues; every secret verifies, so a new secret can be put
 * first while links signed with the old one keep working until they age out.
 */
import {
  createCipheriv,
  createDecipheriv,
  createSecretKey,
  hkdfSync,
  type KeyObject,
  randomFillSync,
} from 'node:crypto';
import { normalizeRecipient } from '../event.js';
import { splitSecretList } from '../secret-list.js';
import { numberFromSettings, type Settings } from '../settings.js';

export const TOKEN_VERSION = 1;
const HEADER_BYTES = 7;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const KEY_ID_BYTES = 2;
/** Secrets shorter than this are refused: they would be guessable, and the key is only as strong as the secret. */
export const MIN_SECRET_LENGTH = 32;
/** `*` is a global unsubscribe; anything else is a topic name (the topics contract's pattern). */
export const GLOBAL_TOPIC = '*';
const TOPIC = /^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$/;
/** A token issued this far in the future (a sender's clock running ahead) is still accepted. */
const MAX_FUTURE_SECONDS = 3600;
export const DEFAULT_MAX_AGE_DAYS = 400;

export interface UnsubscribeClaims {
  /** Normalized address. */
  email: string;
  /** A topic name, or `*` for a global unsubscribe. */
  topic: string;
  /** Issue time, epoch milliseconds (whole seconds). */
  issuedAt: number;
  /** Hex key id of the secret that issued the token. */
  keyId: string;
}

export interface TokenKey {
  id: Buffer;
  key: KeyObject;
}

export type VerifyFailure = 'malformed' | 'unknown_key' | 'forged' | 'expired';
export type VerifyResult = { ok: true; claims: UnsubscribeClaims } | { ok: false; reason: VerifyFailure };

const derived = new Map<string, TokenKey>();

/** Derives (and caches: HKDF per request would dominate the cost) the key and key id of each secret. */
export function deriveTokenKeys(secrets: readonly string[]): TokenKey[] {
  if (secrets.length === 0) throw new Error('UNSUBSCRIBE_SECRETS is empty');
  return secrets.map((secret) => {
    if (secret.length < MIN_SECRET_LENGTH)
      throw new Error(`unsubscribe secrets must be at least ${MIN_SECRET_LENGTH} characters`);
    let entry = derived.get(secret);
    if (!entry) {
      const ikm = Buffer.from(secret, 'utf8');
      const key = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'ratchet unsubscribe v1 aes-256-gcm', 32));
      const id = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), 'ratchet unsubscribe v1 key id', KEY_ID_BYTES));
      entry = { id, key: createSecretKey(key) };
      if (derived.size > 64) derived.clear(); // bounded: secrets rotate, they do not accumulate
      derived.set(secret, entry);
    }
    return entry;
  });
}

export function assertTopic(topic: string): void {
  if (topic !== GLOBAL_TOPIC && !TOPIC.test(topic))
    throw new Error('topic must be `*` or match ^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$');
}

/** Issues a token with the first key. `nowMs` is injected (core never reads the clock itself). */
export function issueToken(claims: { email: string; topic: string }, keys: readonly TokenKey[], nowMs: number): string {
  const email = normalizeRecipient(claims.email);
  assertTopic(claims.topic);
  const signer = keys[0];
  if (!signer) throw new Error('no unsubscribe key');
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt8(TOKEN_VERSION, 0);
  signer.id.copy(header, 1);
  header.writeUInt32BE(Math.floor(nowMs / 1000), 3);
  const topic = Buffer.from(claims.topic, 'utf8');
  const plaintext = Buffer.concat([Buffer.from([topic.length]), topic, Buffer.from(email, 'utf8')]);
  const nonce = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', signer.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(header);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([header, nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

// One CSPRNG call per 256 nonces instead of one per token: the call, not the bytes, is what costs.
// Each slice is handed out once and copied, so no two tokens share a nonce.
const NONCE_POOL = Buffer.alloc(NONCE_BYTES * 256);
let noncePoolOffset = NONCE_POOL.length;

function nextNonce(): Buffer {
  if (noncePoolOffset >= NONCE_POOL.length) {
    randomFillSync(NONCE_POOL);
    noncePoolOffset = 0;
  }
  const nonce = Buffer.from(NONCE_POOL.subarray(noncePoolOffset, noncePoolOffset + NONCE_BYTES));
  noncePoolOffset += NONCE_BYTES;
  return nonce;
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const MIN_TOKEN_BYTES = HEADER_BYTES + NONCE_BYTES + 1 + TAG_BYTES;
/** Longest legitimate token: a 128-character topic and a 320-character address. */
const MAX_TOKEN_CHARS = 700;

/**
 * Never throws: every failure is a reason. `maxAgeDays` bounds how old a token may be; a token from
 * further than an hour in the future is treated as forged-looking and refused as expired.
 */
export function verifyToken(
  token: string,
  keys: readonly TokenKey[],
  nowMs: number,
  maxAgeDays: number = DEFAULT_MAX_AGE_DAYS,
): VerifyResult {
  if (token.length > MAX_TOKEN_CHARS || !BASE64URL.test(token)) return { ok: false, reason: 'malformed' };
  const bytes = Buffer.from(token, 'base64url');
  // Refuse non-canonical encodings (stray low bits in the last character): one token, one spelling.
  if (bytes.length < MIN_TOKEN_BYTES || bytes.toString('base64url') !== token)
    return { ok: false, reason: 'malformed' };
  if (bytes[0] !== TOKEN_VERSION) return { ok: false, reason: 'malformed' };
  const header = bytes.subarray(0, HEADER_BYTES);
  const id = header.subarray(1, 1 + KEY_ID_BYTES);
  const candidates = keys.filter((k) => k.id.equals(id));
  if (candidates.length === 0) return { ok: false, reason: 'unknown_key' };
  const nonce = bytes.subarray(HEADER_BYTES, HEADER_BYTES + NONCE_BYTES);
  const ciphertext = bytes.subarray(HEADER_BYTES + NONCE_BYTES, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  // Two secrets may share a 2-byte id; the tag decides which one (if any) issued the token.
  for (const candidate of candidates) {
    const plaintext = open(candidate.key, header, nonce, ciphertext, tag);
    if (!plaintext) continue;
    const claims = parsePlaintext(plaintext, header, id);
    if (!claims) return { ok: false, reason: 'malformed' };
    const ageMs = nowMs - claims.issuedAt;
    if (ageMs > maxAgeDays * 86_400_000 || -ageMs > MAX_FUTURE_SECONDS * 1000) return { ok: false, reason: 'expired' };
    return { ok: true, claims };
  }
  return { ok: false, reason: 'forged' };
}

function open(key: KeyObject, header: Buffer, nonce: Buffer, ciphertext: Buffer, tag: Buffer): Buffer | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAAD(header);
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  } catch {
    return undefined;
  }
}

function parsePlaintext(plaintext: Buffer, header: Buffer, id: Buffer): UnsubscribeClaims | undefined {
  const topicLength = plaintext[0] ?? 0;
  if (plaintext.length < 1 + topicLength + 3) return undefined;
  const topic = plaintext.subarray(1, 1 + topicLength).toString('utf8');
  const email = plaintext.subarray(1 + topicLength).toString('utf8');
  try {
    assertTopic(topic);
    if (normalizeRecipient(email) !== email) return undefined;
  } catch {
    return undefined;
  }
  return { email, topic, issuedAt: header.readUInt32BE(3) * 1000, keyId: id.toString('hex') };
}

/** UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: a positive number of days, default 400 (CAN-SPAM needs at least 30). */
export function maxAgeDaysFromSettings(settings: Settings): number {
  return numberFromSettings(settings, 'UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS', {
    default: DEFAULT_MAX_AGE_DAYS,
    expected: 'a positive number of days',
    min: 0,
    exclusiveMin: true,
  });
}

/** `UNSUBSCRIBE_SECRETS` (or the secret's value), written as every secret list is (core/secret-list.ts). */
export function parseSecretList(value: string | undefined): string[] {
  return splitSecretList(value, 'unsubscribe secrets');
}
