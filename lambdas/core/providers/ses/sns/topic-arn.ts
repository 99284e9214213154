/**
 * SNS topic ARNs. The ARN is the one signed field that says *who* published, so it drives both the
 * allowlist and the expected certificate host (same partition, same region).
 */
import { MalformedRequestError } from '../../../errors.js';

export type AwsPartition = 'aws' | 'aws-cn' | 'aws-us-gov';

export interface TopicArn {
  readonly arn: string;
  readonly partition: AwsPartition;
  /** e.g. `us-east-1`, `us-gov-west-1`, `cn-north-1`. */
  readonly region: string;
  readonly accountId: string;
  readonly name: string;
}

// Region: two letters, one or more words, a number (`us-east-1`, `ap-southeast-3`, `us-gov-west-1`).
// Topic names: 1-256 of [A-Za-z0-9_-], FIFO topics end in `.fifo`.
const TOPIC_ARN =
  /^arn:(aws|aws-cn|aws-us-gov):sns:([a-z]{2}(?:-[a-z]+)+-[0-9]{1,2}):([0-9]{12}):([A-Za-z0-9_-]{1,256}(?:\.fifo)?)$/;

/** Parses `arn:<partition>:sns:<region>:<12 digits>:<name>`; anything else is MalformedRequestError. */
export function parseTopicArn(value: string): TopicArn {
  const m = TOPIC_ARN.exec(value);
  if (!m) throw new MalformedRequestError('TopicArn is not an SNS topic ARN');
  return {
    arn: value,
    partition: m[1] as AwsPartition,
    region: m[2]!,
    accountId: m[3]!,
    name: m[4]!,
  };
}
