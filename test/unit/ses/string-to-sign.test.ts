import { describe, expect, it } from 'vitest';
import { parseSnsEnvelope } from '../../../lambdas/core/providers/ses/sns/envelope.js';
import { stringToSign } from '../../../lambdas/core/providers/ses/sns/string-to-sign.js';

const base = {
  SignatureVersion: '1',
  Signature: 'AAAA',
  SigningCertURL: 'https://sns.us-east-2.amazonaws.com/SimpleNotificationService-ab.pem',
};

describe('SNS string to sign', () => {
  it('matches the worked Notification example from the SNS developer guide byte for byte', () => {
    const envelope = parseSnsEnvelope(
      JSON.stringify({
        ...base,
        Type: 'Notification',
        MessageId: '4d4dc071-ddbf-465d-bba8-08f81c89da64',
        TopicArn: 'arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P',
        Subject: 'My subject',
        Message: 'My Test Message',
        Timestamp: '2019-01-31T04:37:04.321Z',
        UnsubscribeURL: 'https://sns.us-east-2.amazonaws.com/?Action=Unsubscribe',
      }),
    );
    expect(stringToSign(envelope)).toBe(
      [
        'Message',
        'My Test Message',
        'MessageId',
        '4d4dc071-ddbf-465d-bba8-08f81c89da64',
        'Subject',
        'My subject',
        'Timestamp',
        '2019-01-31T04:37:04.321Z',
        'TopicArn',
        'arn:aws:sns:us-east-2:123456789012:s4-MySNSTopic-1G1WEFCOXTC0P',
        'Type',
        'Notification',
        '',
      ].join('\n'),
    );
  });

  const notification = {
    ...base,
    Type: 'Notification',
    MessageId: 'm',
    TopicArn: 'arn:aws:sns:us-east-2:123456789012:t',
    Message: 'hello',
    Timestamp: '2019-01-31T04:37:04.321Z',
  };

  it('leaves Subject out entirely when it is absent', () => {
    expect(stringToSign(parseSnsEnvelope(JSON.stringify(notification)))).not.toContain('Subject');
  });

  it('signs an empty Subject, which is present', () => {
    const text = stringToSign(parseSnsEnvelope(JSON.stringify({ ...notification, Subject: '' })));
    expect(text).toContain('MessageId\nm\nSubject\n\nTimestamp\n');
  });

  it('uses JSON-decoded values: an escaped newline in Message is a real newline', () => {
    const text = stringToSign(parseSnsEnvelope(JSON.stringify({ ...notification, Message: 'a\nb "c" \u00e9' })));
    expect(text.startsWith('Message\na\nb "c" \u00e9\nMessageId\n')).toBe(true);
  });

  it('ignores unsigned fields on a Notification (UnsubscribeURL, a stray Token or SubscribeURL)', () => {
    const text = stringToSign(
      parseSnsEnvelope(JSON.stringify({ ...notification, Token: 't', SubscribeURL: 'https://x', UnsubscribeURL: 'u' })),
    );
    expect(text).toBe(
      'Message\nhello\nMessageId\nm\nTimestamp\n2019-01-31T04:37:04.321Z\nTopicArn\narn:aws:sns:us-east-2:123456789012:t\nType\nNotification\n',
    );
  });

  it.each(['SubscriptionConfirmation', 'UnsubscribeConfirmation'])(
    'signs Message, MessageId, SubscribeURL, Timestamp, Token, TopicArn, Type for %s (and never Subject)',
    (type) => {
      const text = stringToSign(
        parseSnsEnvelope(
          JSON.stringify({
            ...notification,
            Type: type,
            Token: 'tok',
            SubscribeURL: 'https://sns.us-east-2.amazonaws.com/?Action=ConfirmSubscription',
            Subject: 'not signed here',
          }),
        ),
      );
      expect(text).toBe(
        'Message\nhello\nMessageId\nm\nSubscribeURL\nhttps://sns.us-east-2.amazonaws.com/?Action=ConfirmSubscription\n' +
          `Timestamp\n2019-01-31T04:37:04.321Z\nToken\ntok\nTopicArn\narn:aws:sns:us-east-2:123456789012:t\nType\n${type}\n`,
      );
    },
  );
});
