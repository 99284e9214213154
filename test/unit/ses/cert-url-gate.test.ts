/**
 * Every SigningCertURL bypass fails closed through the real provider, with a correctly signed
 * message from an allowed topic, and is decided before the certificate source is ever asked.
 */
import { describe, expect, it } from 'vitest';
import {
  CERT_URL,
  makeProvider,
  notificationFields,
  recordingCertificates,
  rejection,
  signed,
  toRequest,
} from './fixtures.js';

const PEM = '/SimpleNotificationService-0123456789abcdef.pem';

async function gate(url: string) {
  const certificates = recordingCertificates();
  const provider = makeProvider({ certificates });
  const error = await rejection(provider.receive(toRequest(signed(notificationFields({ SigningCertURL: url })))));
  return { error, calls: certificates.calls };
}

describe('SigningCertURL gate, end to end', () => {
  it('control: the canonical URL is fetched exactly once and accepted', async () => {
    const certificates = recordingCertificates();
    const receipt = await makeProvider({ certificates }).receive(toRequest(signed(notificationFields())));
    expect(certificates.calls).toEqual([CERT_URL]);
    expect(receipt.events).toHaveLength(1);
  });

  it.each([
    ['%2E in the host (decodes to the AWS host)', `https://sns.us-east-1.amazonaws%2Ecom${PEM}`],
    ['%2E that turns the host into another domain', `https://sns.us-east-1%2Eevil.example${PEM}`],
    ['any percent-encoding in the path', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-%61b.pem'],
    ['userinfo before the AWS host', `https://evil.example@sns.us-east-1.amazonaws.com${PEM}`],
    ['userinfo after the AWS host', `https://sns.us-east-1.amazonaws.com@evil.example${PEM}`],
    ['user:password userinfo', `https://sns.us-east-1.amazonaws.com:x@evil.example${PEM}`],
    ['#@ (fragment hiding the real host)', `https://evil.example#@sns.us-east-1.amazonaws.com${PEM}`],
    ['?@ (query hiding the real host)', `https://evil.example?@sns.us-east-1.amazonaws.com${PEM}`],
    ['\\@ (backslash read as a slash)', `https://evil.example\\@sns.us-east-1.amazonaws.com${PEM}`],
    ['a backslash in the path', 'https://sns.us-east-1.amazonaws.com\\SimpleNotificationService-ab.pem'],
    ['the AWS host as a prefix of another domain', `https://sns.us-east-1.amazonaws.com.evil.example${PEM}`],
    ['the AWS host in the path', 'https://evil.example/sns.us-east-1.amazonaws.com/SimpleNotificationService-ab.pem'],
    ['an explicit :443 (dropped by WHATWG)', `https://sns.us-east-1.amazonaws.com:443${PEM}`],
    ['an explicit :8443', `https://sns.us-east-1.amazonaws.com:8443${PEM}`],
    ['an empty port', `https://sns.us-east-1.amazonaws.com:${PEM}`],
    ['http:', `http://sns.us-east-1.amazonaws.com${PEM}`],
    ['a query ending in .pem', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-ab.pem?x=.pem'],
    ['a query making any path look like .pem', 'https://sns.us-east-1.amazonaws.com/anything?x=.pem'],
    ['an empty query', `https://sns.us-east-1.amazonaws.com${PEM}?`],
    ['a fragment', `https://sns.us-east-1.amazonaws.com${PEM}#x`],
    ['an S3 website-style host', `https://sns.s3-us-east-1.amazonaws.com${PEM}`],
    ['the S3 host', `https://s3.amazonaws.com${PEM}`],
    ['an S3 bucket path', 'https://s3.amazonaws.com/sns.us-east-1.amazonaws.com/SimpleNotificationService-ab.pem'],
    ['another region than the TopicArn', `https://sns.us-west-2.amazonaws.com${PEM}`],
    ['a made-up region label', `https://sns.not-a-region.amazonaws.com${PEM}`],
    ['the China suffix for a non-China topic', `https://sns.us-east-1.amazonaws.com.cn${PEM}`],
    ['an IP literal', `https://52.94.0.1${PEM}`],
    ['a file name that is not SNS', 'https://sns.us-east-1.amazonaws.com/evil.pem'],
  ])('rejects %s before any certificate fetch', async (_why, url) => {
    const { error, calls } = await gate(url);
    expect(error.status).toBe(401);
    expect(error.code).toBe('authentication_failed');
    expect(error.message).toMatch(/SigningCertURL/);
    expect(calls).toEqual([]);
  });
});
