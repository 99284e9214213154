/**
 * Every queue Ratchet creates holds webhook payloads (addresses, provider ids), so every one is
 * encrypted at rest with SQS-managed keys and refuses any request not made over TLS (cdk-nag's SQS2
 * and SQS4). One function, so a new queue cannot forget either.
 */
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export type SecureQueueProps = Omit<sqs.QueueProps, 'encryption' | 'encryptionMasterKey' | 'enforceSSL'>;

export function secureQueue(scope: Construct, id: string, props: SecureQueueProps): sqs.Queue {
  return new sqs.Queue(scope, id, { ...props, encryption: sqs.QueueEncryption.SQS_MANAGED, enforceSSL: true });
}
