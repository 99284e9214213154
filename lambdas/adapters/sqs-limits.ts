/**
 * SQS's own limit on the batch calls: at most 10 entries in a SendMessageBatch or DeleteMessageBatch,
 * and at most 10 messages from one ReceiveMessage (`MaxNumberOfMessages`, 1 to 10).
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_SendMessageBatch.html
 * https://docs.aws.amazon.com/AWSSimpleQueueService/latest/APIReference/API_ReceiveMessage.html
 */
export const SQS_BATCH_MAX = 10;
