/** Postmark has no signature: HTTP Basic credentials are the authentication, checked before anything is parsed. */
import { describe, expect, it } from 'vitest';
import { AuthenticationError } from '../../../lambdas/core/errors.js';
import { postmarkProvider } from '../../../lambdas/core/providers/postmark/index.js';
import { postmarkAuthorization } from '../../../lib/demo/postmark.js';
import { providerDeps } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import { CREDENTIAL, delivery, postmark, request } from './support.js';

const basic = (userPass: string) => postmarkAuthorization(userPass);

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  if (error === undefined) throw new Error('expected a rejection');
  return error;
}

describe('Postmark Basic authentication', () => {
  it('accepts the configured user:password', async () => {
    const { events } = await postmark().receive(request(delivery()));
    expect(events.map((e) => e.kind)).toEqual(['delivered']);
  });

  it('accepts a lower-case `basic` scheme (RFC 7617 schemes are case-insensitive)', async () => {
    const token = Buffer.from(CREDENTIAL).toString('base64');
    await expect(postmark().receive(request(delivery(), { authorization: `basic ${token}` }))).resolves.toSatisfy(
      carriesEvents('postmark'),
    );
  });

  it.each([
    ['a wrong user', 'ratchet-hooK:s3cret-Pa55word'],
    ['a wrong password', 'ratchet-hook:s3cret-Pa55wordX'],
    ['a password prefix', 'ratchet-hook:s3cret'],
    ['user and password swapped', 's3cret-Pa55word:ratchet-hook'],
    ['the user alone', 'ratchet-hook'],
    ['an empty pair', ':'],
  ])('rejects %s with 401', async (_, userPass) => {
    const error = await rejection(postmark().receive(request(delivery(), { authorization: basic(userPass) })));
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).status).toBe(401);
  });

  it('says the same thing for a wrong user and a wrong password', async () => {
    const wrongUser = await rejection(
      postmark().receive(request(delivery(), { authorization: basic('x:s3cret-Pa55word') })),
    );
    const wrongPassword = await rejection(
      postmark().receive(request(delivery(), { authorization: basic('ratchet-hook:x') })),
    );
    expect(wrongUser.message).toBe(wrongPassword.message);
  });

  it('rejects a missing authorization header', async () => {
    await expect(postmark().receive(request(delivery(), {}))).rejects.toBeInstanceOf(AuthenticationError);
    await expect(postmark().receive(request(delivery(), { authorization: '  ' }))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each([
    ['Bearer', `Bearer ${Buffer.from(CREDENTIAL).toString('base64')}`],
    ['Digest', `Digest ${Buffer.from(CREDENTIAL).toString('base64')}`],
    ['no scheme', Buffer.from(CREDENTIAL).toString('base64')],
    ['the plain credential', `Basic ${CREDENTIAL}`],
  ])('rejects a non-Basic scheme: %s', async (_, authorization) => {
    await expect(postmark().receive(request(delivery(), { authorization }))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each([
    ['garbage characters', 'Basic !!!not-base64!!!'],
    ['the scheme alone', 'Basic   '],
    ['a token of padding only', 'Basic ===='],
    ['wrong padding', `Basic ${Buffer.from(CREDENTIAL).toString('base64').replace(/=+$/, '')}=`],
    ['a truncated token', `Basic ${Buffer.from(CREDENTIAL).toString('base64').slice(0, -1)}`],
    ['two tokens', `Basic ${Buffer.from(CREDENTIAL).toString('base64')} ${Buffer.from(CREDENTIAL).toString('base64')}`],
    // A header sent twice arrives comma-joined: it must not parse, even when one copy is right.
    ['a duplicated header', `${basic(CREDENTIAL)},${basic('x:y')}`],
  ])('rejects garbled credentials: %s', async (_, authorization) => {
    await expect(postmark().receive(request(delivery(), { authorization }))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('accepts every configured pair (rotation overlap) and nothing else', async () => {
    const provider = postmark(['old-user:old-password', CREDENTIAL]);
    await expect(
      provider.receive(request(delivery(), { authorization: basic('old-user:old-password') })),
    ).resolves.toSatisfy(carriesEvents('postmark'));
    await expect(provider.receive(request(delivery(), { authorization: basic(CREDENTIAL) }))).resolves.toSatisfy(
      carriesEvents('postmark'),
    );
    // Mixing the user of one pair with the password of the other is not a pair.
    await expect(
      provider.receive(request(delivery(), { authorization: basic('old-user:s3cret-Pa55word') })),
    ).rejects.toBeInstanceOf(AuthenticationError);
  });

  it('accepts a password containing a colon (only the user-id may not)', async () => {
    const provider = postmark(['user:pa:ss']);
    await expect(provider.receive(request(delivery(), { authorization: basic('user:pa:ss') }))).resolves.toSatisfy(
      carriesEvents('postmark'),
    );
  });

  it('never puts credentials in the error message', async () => {
    for (const userPass of ['ratchet-hook:wrong-password-123', 'intruder:s3cret-Pa55word']) {
      const error = await rejection(postmark().receive(request(delivery(), { authorization: basic(userPass) })));
      for (const secret of ['wrong-password-123', 'intruder', 's3cret-Pa55word', 'ratchet-hook']) {
        expect(error.message).not.toContain(secret);
      }
    }
  });

  it('authenticates before parsing: an unauthenticated garbage body is 401, not 400', async () => {
    await expect(postmark().receive(request('{not json', { authorization: basic('x:y') }))).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each([['no-colon'], [':password-only'], ['user-only:'], ['']])(
    'refuses a configured entry %j at create()',
    (entry) => {
      expect(() => postmarkProvider.create(providerDeps([CREDENTIAL, entry]))).toThrow(/POSTMARK_BASIC_AUTH entry 2/);
    },
  );

  it('does not echo a bad configured entry in the create() error', () => {
    expect(() => postmarkProvider.create(providerDeps(['hunter2-secret']))).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });
});
