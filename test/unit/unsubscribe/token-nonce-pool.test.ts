/** The nonce pool: one CSPRNG call per 256 tokens (the call is what costs), each slice used once. */
import * as crypto from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { deriveTokenKeys, issueToken } from '../../../lambdas/core/unsubscribe/token.js';

vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, randomFillSync: vi.fn(actual.randomFillSync) };
});

describe('nonce pool', () => {
  it('refills the 256-nonce pool once per 256 tokens, and never hands a nonce out twice', () => {
    const keys = deriveTokenKeys(['nonce-pool-secret-0123456789abcdefghij']);
    const fill = vi.mocked(crypto.randomFillSync);
    fill.mockClear();
    const nonces = new Set<string>();
    for (let i = 0; i < 512; i++) {
      const token = issueToken({ email: 'jane@example.com', topic: 'n' }, keys, Date.UTC(2026, 0, 1));
      nonces.add(Buffer.from(token, 'base64url').subarray(7, 19).toString('hex'));
    }
    expect(nonces.size).toBe(512);
    expect(fill).toHaveBeenCalledTimes(2); // the first token of this file found the pool empty
    expect(fill.mock.calls[0]![0]).toHaveLength(12 * 256);
  });
});
