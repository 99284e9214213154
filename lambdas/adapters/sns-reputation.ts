/**
 * The reputation notifications (SNS topic `<prefix>-reputation`) and the evaluator's two gauges (EMF).
 * One publish per change of state: the evaluator announces a change only when its conditional write
 * made it, and runs with reserved concurrency 1.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { TransientError } from '../core/errors.js';
import { describeChange, type StateChange } from '../core/reputation/evaluate.js';

export class SnsReputationNotifier {
  constructor(
    private readonly client: SNSClient,
    private readonly topicArn: string,
  ) {}

  async notify(change: StateChange): Promise<void> {
    const { subject, text } = describeChange(change);
    try {
      await this.client.send(
        new PublishCommand({
          TopicArn: this.topicArn,
          Subject: subject,
          Message: text,
          // For subscription filter policies: only breaches to the pager, say.
          MessageAttributes: {
            state: { DataType: 'String', StringValue: change.state },
            sender: { DataType: 'String', StringValue: change.sender },
            provider: { DataType: 'String', StringValue: change.provider },
          },
        }),
      );
    } catch (cause) {
      throw new TransientError('reputation notification failed', { cause });
    }
  }
}

/**
 * `SendersInWarn` and `SendersInBreach` under the Ratchet namespace with the `service` dimension only
 * (no provider: a count across all senders), zeros included.
 */
export function reputationGauges(serviceName: string, namespace: string) {
  return (gauges: Record<string, number>): void => {
    const metrics = new Metrics({ serviceName, namespace });
    for (const [name, value] of Object.entries(gauges)) metrics.addMetric(name, MetricUnit.Count, value);
    metrics.publishStoredMetrics();
  };
}
