/**
 * Confirms SNS subscriptions through the API, with the token from the signed message. We never GET the
 * SubscribeURL: that would be an outbound request to a URL an attacker could choose. The client is made
 * per region because ConfirmSubscription must be called in the topic's region.
 */
import { ConfirmSubscriptionCommand, SNSClient } from '@aws-sdk/client-sns';
import type { SubscriptionConfirmer } from '../../core/pipeline/ports.js';

export class SnsSubscriptionConfirmer implements SubscriptionConfirmer {
  private readonly clients = new Map<string, SNSClient>();

  constructor(private readonly makeClient: (region: string) => SNSClient = (region) => new SNSClient({ region })) {}

  async confirm(topicArn: string, token: string): Promise<void> {
    const region = topicArn.split(':')[3];
    if (!region) throw new Error('TopicArn has no region');
    let client = this.clients.get(region);
    if (!client) {
      client = this.makeClient(region);
      this.clients.set(region, client);
    }
    // AuthenticateOnUnsubscribe: only the topic owner can unsubscribe us, not anyone holding the link.
    await client.send(
      new ConfirmSubscriptionCommand({ TopicArn: topicArn, Token: token, AuthenticateOnUnsubscribe: 'true' }),
    );
  }
}
