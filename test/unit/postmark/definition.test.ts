/**
 * The Postmark provider's public contract as data (variable names, the allowlist setting), the exact
 * refusals of its two gates, and which `Authorization` headers count as Basic credentials.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthenticationError, ForbiddenSenderError } from '../../../lambdas/core/errors.js';
import {
  POSTMARK_CREDENTIALS_VARIABLE,
  postmarkCredentialDigests,
  postmarkProvider,
} from '../../../lambdas/core/providers/postmark/index.js';
import { POSTMARK_ALLOWED_IPS_VARIABLE } from '../../../lambdas/core/providers/postmark/verify.js';
import { CREDENTIAL, delivery, postmark, request } from './support.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const NOT_BASIC = 'authorization is not Basic credentials';
const NO_MATCH = 'Basic credentials do not match';

async function outcome(authorization: string, credentials: readonly string[] = [CREDENTIAL]): Promise<string> {
  try {
    const { events } = await postmark(credentials).receive(request(delivery(), { authorization }));
    return `accepted ${events.length}`;
  } catch (error) {
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, code: 'authentication_failed' });
    return (error as Error).message;
  }
}

describe('Postmark provider definition', () => {
  it('names its route, variables and setting exactly as documented', async () => {
    expect(postmarkProvider.name).toBe('postmark');
    expect(POSTMARK_CREDENTIALS_VARIABLE).toBe('POSTMARK_BASIC_AUTH');
    expect(postmarkProvider.credentialsVariable).toBe('POSTMARK_BASIC_AUTH');
    expect(postmarkProvider.secretArnVariable).toBe('POSTMARK_SECRET_ARN');
    expect(POSTMARK_ALLOWED_IPS_VARIABLE).toBe('POSTMARK_ALLOWED_IPS');
    expect(postmarkProvider.settings).toEqual([
      {
        variable: 'POSTMARK_ALLOWED_IPS',
        contextKey: 'postmarkAllowedIps',
        describe: 'Source addresses or CIDR ranges allowed to call the Postmark route (default: no IP check)',
      },
    ]);
    expect(await outcome(`Basic ${b64(CREDENTIAL)}`)).toBe('accepted 1');
  });

  it('keeps each credential as the SHA-256 of its UTF-8 bytes', () => {
    expect(postmarkCredentialDigests(['üser:pässword'])).toEqual([
      createHash('sha256').update(Buffer.from('üser:pässword', 'utf8')).digest(),
    ]);
  });
});

describe('Postmark gates: exact refusals', () => {
  it('an address off the allowlist is 403 naming the setting', async () => {
    const receipt = postmark([CREDENTIAL], { POSTMARK_ALLOWED_IPS: '203.0.113.0/24' }).receive(
      request(delivery(), undefined, '198.51.100.7'),
    );
    await expect(receipt).rejects.toThrow(ForbiddenSenderError);
    await expect(receipt).rejects.toMatchObject({
      status: 403,
      code: 'forbidden_sender',
      message: 'source IP is not on POSTMARK_ALLOWED_IPS',
    });
  });

  it('a well-formed header with the wrong pair does not match; a garbled one is not Basic', async () => {
    expect(await outcome(`Basic ${b64('ratchet-hook:wrong')}`)).toBe(NO_MATCH);
    expect(await outcome('Bearer abcd')).toBe(NOT_BASIC);
    expect(await outcome('Basic')).toBe(NOT_BASIC);
  });
});

describe('Postmark Basic header syntax', () => {
  it('accepts every padding length of canonical base64 (none, "=", "==")', async () => {
    for (const credential of ['abc:def', 'abc:defg', 'abc:defgh', 'a-longer-user:and-a-longer-password']) {
      expect(await outcome(`Basic ${b64(credential)}`, [credential])).toBe('accepted 1');
    }
  });

  it('accepts several spaces after the scheme and trailing spaces', async () => {
    expect(await outcome(`Basic   ${b64(CREDENTIAL)}`)).toBe('accepted 1');
    expect(await outcome(`Basic ${b64(CREDENTIAL)}   `)).toBe('accepted 1');
  });

  it('refuses anything before the scheme or after the token, a missing space, and non-canonical base64', async () => {
    const token = b64(CREDENTIAL);
    expect(await outcome(`XBasic ${token}`)).toBe(NOT_BASIC);
    expect(await outcome(`Basic ${token} x`)).toBe(NOT_BASIC);
    expect(await outcome(`Basic ${token}, Basic ${token}`)).toBe(NOT_BASIC);
    expect(await outcome(`Basic${token}`)).toBe(NOT_BASIC);
    expect(await outcome('Basic abcde')).toBe(NOT_BASIC);
    expect(await outcome('Basic ab=')).toBe(NOT_BASIC);
    expect(await outcome('Basic a===')).toBe(NOT_BASIC);
    expect(await outcome('Basic ab-_')).toBe(NOT_BASIC);
    expect(await outcome('Basic ab-_YWJj')).toBe(NOT_BASIC);
    expect(await outcome('Basic YWJj-_==')).toBe(NOT_BASIC);
    expect(await outcome('Basic YWJj-_-=')).toBe(NOT_BASIC);
  });
});
