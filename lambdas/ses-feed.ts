/**
 * Placeholder for the SES feed's Lambda entry (the SQS queue the SES topic feeds), so the stack on this
 * branch bundles and synthesizes. The runtime branch replaces it with the real handler.
 */
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';

export async function handler(_event: SQSEvent): Promise<SQSBatchResponse> {
  throw new Error('not built on this branch');
}
