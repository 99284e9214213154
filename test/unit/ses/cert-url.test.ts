import { describe, expect, it } from 'vitest';
import { AuthenticationError, MalformedRequestError } from '../../../lambdas/core/errors.js';
import { assertSigningCertUrl, expectedHost } from '../../../lambdas/core/providers/ses/sns/cert-url.js';
import { parseTopicArn } from '../../../lambdas/core/providers/ses/sns/topic-arn.js';

const useast1 = parseTopicArn('arn:aws:sns:us-east-1:123456789012:feedback');
const PEM = '/SimpleNotificationService-0123456789abcdef.pem';

describe('SigningCertURL gate (pure)', () => {
  it.each([
    ['aws', 'arn:aws:sns:us-east-1:123456789012:t', 'https://sns.us-east-1.amazonaws.com'],
    ['aws-us-gov', 'arn:aws-us-gov:sns:us-gov-west-1:123456789012:t', 'https://sns.us-gov-west-1.amazonaws.com'],
    ['aws-cn', 'arn:aws-cn:sns:cn-north-1:123456789012:t', 'https://sns.cn-north-1.amazonaws.com.cn'],
  ])('accepts the %s partition host for the topic region', (_partition, arn, origin) => {
    expect(assertSigningCertUrl(`${origin}${PEM}`, parseTopicArn(arn))).toBe(`${origin}${PEM}`);
  });

  it('ties .amazonaws.com.cn to the China partition only', () => {
    const gate = () => assertSigningCertUrl(`https://sns.us-east-1.amazonaws.com.cn${PEM}`, useast1);
    expect(gate).toThrow(AuthenticationError);
    expect(expectedHost(parseTopicArn('arn:aws-cn:sns:cn-northwest-1:123456789012:t'))).toBe(
      'sns.cn-northwest-1.amazonaws.com.cn',
    );
  });

  it('rejects upper case (not canonical, even though WHATWG would lower-case it)', () => {
    expect(() => assertSigningCertUrl(`https://SNS.us-east-1.amazonaws.com${PEM}`, useast1)).toThrow(
      AuthenticationError,
    );
  });

  it('rejects a trailing dot on the host', () => {
    expect(() => assertSigningCertUrl(`https://sns.us-east-1.amazonaws.com.${PEM}`, useast1)).toThrow(
      AuthenticationError,
    );
  });

  it.each([
    ['tab stripped by WHATWG', `https://sns.us-east-1.amazon\taws.com${PEM}`],
    ['newline stripped by WHATWG', `https://sns.us-east-1.amazonaws.com${PEM}\n`],
    ['leading space', ` https://sns.us-east-1.amazonaws.com${PEM}`],
    ['single slash fixed up by WHATWG', `https:/sns.us-east-1.amazonaws.com${PEM}`],
    ['dot segment', `https://sns.us-east-1.amazonaws.com/x/..${PEM}`],
    ['upper-case hex in the file name', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-ABCDEF.pem'],
    ['no hex in the file name', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-.pem'],
    ['.crt instead of .pem', 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-ab.crt'],
    ['a nested path', `https://sns.us-east-1.amazonaws.com/certs${PEM}`],
    ['not a URL', 'sns.us-east-1.amazonaws.com/SimpleNotificationService-ab.pem'],
  ])('rejects %s', (_why, url) => {
    expect(() => assertSigningCertUrl(url, useast1)).toThrow(AuthenticationError);
  });
});

describe('TopicArn parsing', () => {
  it.each([
    'arn:aws:sns:us-east-1:123456789012:ses-feedback',
    'arn:aws:sns:ap-southeast-3:123456789012:a_b-C',
    'arn:aws:sns:us-east-1:123456789012:orders.fifo',
    'arn:aws-us-gov:sns:us-gov-east-1:123456789012:t',
    'arn:aws-cn:sns:cn-northwest-1:123456789012:t',
  ])('accepts %s', (arn) => {
    expect(parseTopicArn(arn).arn).toBe(arn);
  });

  it('extracts partition, region, account and name', () => {
    expect(parseTopicArn('arn:aws-us-gov:sns:us-gov-west-1:123456789012:feedback')).toEqual({
      arn: 'arn:aws-us-gov:sns:us-gov-west-1:123456789012:feedback',
      partition: 'aws-us-gov',
      region: 'us-gov-west-1',
      accountId: '123456789012',
      name: 'feedback',
    });
  });

  it.each([
    'arn:aws:sqs:us-east-1:123456789012:t',
    'arn:aws-iso:sns:us-east-1:123456789012:t',
    'arn:aws:sns:us-east-1:12345678901:t',
    'arn:aws:sns:us-east-1:123456789012:',
    'arn:aws:sns:evil.example:123456789012:t',
    'arn:aws:sns:us-east-1:123456789012:t:subscription-id',
    'arn:aws:sns:us-east-1:123456789012:t\n',
    'arn:aws:sns::123456789012:t',
  ])('rejects %j', (arn) => {
    expect(() => parseTopicArn(arn)).toThrow(MalformedRequestError);
  });
});
