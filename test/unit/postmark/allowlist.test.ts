/** The optional source-IP allowlist: `request.sourceIp` only, never X-Forwarded-For. */
import { describe, expect, it } from 'vitest';
import { ForbiddenSenderError } from '../../../lambdas/core/errors.js';
import { postmarkProvider } from '../../../lambdas/core/providers/postmark/index.js';
import { postmarkAuthorization } from '../../../lib/demo/postmark.js';
import { providerDeps } from '../support/provider.js';
import { carriesEvents } from '../support/receipt.js';
import { CREDENTIAL, delivery, postmark, request } from './support.js';

const AUTH = { authorization: postmarkAuthorization(CREDENTIAL) };
// Postmark's published webhook IPs (postmark.md §1), a CIDR range and IPv6 entries.
const ALLOWED = '3.134.147.250, 50.31.156.6,10.20.0.0/16,2600:1f24:64:8000::/52, 2001:db8::7';

function withAllowlist(setting = ALLOWED) {
  return postmark([CREDENTIAL], { POSTMARK_ALLOWED_IPS: setting });
}

describe('Postmark source-IP allowlist', () => {
  it.each([
    ['a listed IPv4 address', '3.134.147.250'],
    ['another listed address (spaces around entries are fine)', '50.31.156.6'],
    ['an address inside a CIDR range', '10.20.255.1'],
    ['an address inside an IPv6 range', '2600:1f24:64:8abc::1'],
    ['a listed IPv6 address, written differently', '2001:0db8:0:0::7'],
    ['an IPv4-mapped IPv6 peer of a listed address', '::ffff:3.134.147.250'],
  ])('admits %s', async (_, sourceIp) => {
    await expect(withAllowlist().receive(request(delivery(), AUTH, sourceIp))).resolves.toSatisfy(
      carriesEvents('postmark'),
    );
  });

  it.each([
    ['an unlisted IPv4 address', '3.134.147.251'],
    ['an address just outside the CIDR range', '10.21.0.1'],
    ['an address outside the IPv6 range', '2600:1f24:64:9000::1'],
    ['an unlisted IPv6 address', '2001:db8::8'],
    ['loopback', '127.0.0.1'],
    ['a value that is not an address', 'not-an-ip'],
  ])('forbids %s with 403', async (_, sourceIp) => {
    const error = await withAllowlist()
      .receive(request(delivery(), AUTH, sourceIp))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ForbiddenSenderError);
    expect((error as ForbiddenSenderError).status).toBe(403);
  });

  it('forbids a request without a sourceIp while an allowlist is set', async () => {
    await expect(withAllowlist().receive(request(delivery(), AUTH))).rejects.toBeInstanceOf(ForbiddenSenderError);
  });

  it('ignores a spoofed X-Forwarded-For naming a listed address', async () => {
    const spoofed = { ...AUTH, 'x-forwarded-for': '3.134.147.250', 'x-real-ip': '3.134.147.250' };
    await expect(withAllowlist().receive(request(delivery(), spoofed, '198.51.100.9'))).rejects.toBeInstanceOf(
      ForbiddenSenderError,
    );
    await expect(withAllowlist().receive(request(delivery(), spoofed))).rejects.toBeInstanceOf(ForbiddenSenderError);
  });

  it('is not confused by an X-Forwarded-For naming an unlisted address', async () => {
    const headers = { ...AUTH, 'x-forwarded-for': '198.51.100.9' };
    await expect(withAllowlist().receive(request(delivery(), headers, '3.134.147.250'))).resolves.toSatisfy(
      carriesEvents('postmark'),
    );
  });

  it('checks the source before the credentials: an unlisted sender learns nothing about them', async () => {
    const wrong = { authorization: postmarkAuthorization('x:y') };
    await expect(withAllowlist().receive(request(delivery(), wrong, '198.51.100.9'))).rejects.toBeInstanceOf(
      ForbiddenSenderError,
    );
  });

  it('still requires the credentials from a listed address', async () => {
    const wrong = { authorization: postmarkAuthorization('x:y') };
    await expect(withAllowlist().receive(request(delivery(), wrong, '3.134.147.250'))).rejects.toMatchObject({
      status: 401,
    });
  });

  it('is off when the setting is unset or blank: no sourceIp needed', async () => {
    await expect(postmark().receive(request(delivery(), AUTH))).resolves.toSatisfy(carriesEvents('postmark'));
    await expect(withAllowlist('  ').receive(request(delivery(), AUTH))).resolves.toSatisfy(carriesEvents('postmark'));
  });

  it.each([
    ['a hostname', 'api.postmarkapp.com'],
    ['an empty entry', '3.134.147.250,,50.31.156.6'],
    ['a trailing comma', '3.134.147.250,'],
    ['an IPv4 prefix over 32', '10.0.0.0/33'],
    ['an IPv6 prefix over 128', '2001:db8::/129'],
    ['an empty prefix', '10.0.0.0/'],
    ['a non-numeric prefix', '10.0.0.0/8a'],
    ['a negative prefix', '10.0.0.0/-1'],
    ['a range', '10.0.0.1-10.0.0.9'],
    ['a zone id', 'fe80::1%eth0'],
    ['an octal-looking address', '010.0.0.1'],
  ])('throws at create() on %s', (_, setting) => {
    expect(() =>
      postmarkProvider.create(providerDeps([CREDENTIAL], { settings: { POSTMARK_ALLOWED_IPS: setting } })),
    ).toThrow(/POSTMARK_ALLOWED_IPS entry \d+/);
  });
});
