/**
 * What Lambda's SQS event source mapping hands a function, built from messages the local pollers
 * received themselves: the same handler code then runs on one machine as on AWS.
 */
import type { Message } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';

export function sqsEvent(messages: readonly Message[], sourceArn: string, region: string): SQSEvent {
  return {
    Records: messages.map(
      (m): SQSRecord => ({
        messageId: m.MessageId!,
        receiptHandle: m.ReceiptHandle!,
        body: m.Body ?? '',
        attributes: {
          ApproximateReceiveCount: m.Attributes?.ApproximateReceiveCount ?? '1',
          SentTimestamp: m.Attributes?.SentTimestamp ?? String(Date.now()),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: m.Attributes?.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: m.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: sourceArn,
        awsRegion: region,
      }),
    ),
  };
}
