/**
 * signOnce: one SigV4 signer per client instead of one per request, and the requests it signs are the
 * ones the SDK's own signer signs, with the client's current credentials. The requests stop at a
 * request handler that records them (no endpoint checks a signature here).
 */
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { signOnce } from '../../../lambdas/adapters/sign-once.js';

interface Sent {
  headers: Record<string, string>;
  hostname: string;
  method: string;
  path: string;
  body: unknown;
}

/** Records every request as signed, and answers it as DynamoDB or SQS would (JSON protocol). */
function recordingHandler(body: string) {
  const sent: Sent[] = [];
  return {
    sent,
    handler: {
      handle: async (request: Sent) => {
        sent.push(structuredClone({ ...request }));
        return {
          response: {
            statusCode: 200,
            headers: { 'content-type': 'application/x-amz-json-1.0' },
            body: new TextEncoder().encode(body),
          },
        };
      },
    },
  };
}

const credentialOf = (authorization: string) => /Credential=([^/]+)\//.exec(authorization)?.[1];

describe('signOnce', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('builds the signer on the first request only, and every request is still signed', async () => {
    const { sent, handler } = recordingHandler('{"TableNames":[]}');
    const client = new DynamoDBClient({
      region: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
      requestHandler: handler as never,
    });
    const build = vi.spyOn(client.config, 'signer');
    signOnce(client);
    for (let i = 0; i < 5; i++) await client.send(new ListTablesCommand({}));
    expect(build).toHaveBeenCalledTimes(1);
    expect(sent).toHaveLength(5);
    for (const request of sent) {
      expect(request.headers.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/dynamodb\/aws4_request, SignedHeaders=\S+, Signature=[0-9a-f]{64}$/,
      );
    }
  });

  it("signs exactly as the SDK's own per-request signer does", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-12-04T12:00:00Z'));
    const { sent, handler } = recordingHandler('{"QueueUrls":[]}');
    const options = {
      region: 'us-east-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' },
      requestHandler: handler as never,
    };
    const once = signOnce(new SQSClient(options));
    await once.send(new ListQueuesCommand({ QueueNamePrefix: 'ratchet' }));
    await once.send(new ListQueuesCommand({ QueueNamePrefix: 'ratchet' }));

    // The same requests signed again by a signer the SDK builds fresh, as it does without signOnce.
    const fresh = await new SQSClient(options).config.signer();
    for (const request of sent) {
      const { authorization, ...unsigned } = request.headers;
      const again = (await fresh.sign({ ...request, headers: { ...unsigned } } as never, {
        signingDate: new Date('2026-12-04T12:00:00Z'),
      })) as unknown as Sent;
      expect(authorization).toBe(again.headers.authorization);
    }
    // Two requests, two signatures (each carries its own invocation id): nothing is replayed.
    expect(sent[0]!.headers.authorization).not.toBe(sent[1]!.headers.authorization);
  });

  it('signs each request with the credentials the provider gives at that time (a rotated role session)', async () => {
    const { sent, handler } = recordingHandler('{"TableNames":[]}');
    let issued = 0;
    const client = signOnce(
      new DynamoDBClient({
        region: 'eu-west-1',
        // Expiring within the SDK's refresh window, so it asks the provider again on each request.
        credentials: async () => ({
          accessKeyId: `ASIA${++issued}`,
          secretAccessKey: `secret${issued}`,
          sessionToken: `token${issued}`,
          expiration: new Date(Date.now() + 60_000),
        }),
        requestHandler: handler as never,
      }),
    );
    for (let i = 0; i < 3; i++) await client.send(new ListTablesCommand({}));
    // The SDK asks the provider more than once a request; what matters is that each request carries
    // a newer session than the one before, its key and token from the same answer.
    const keys = sent.map((r) => Number(credentialOf(r.headers.authorization!)?.slice('ASIA'.length)));
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBeGreaterThan(keys[0]!);
    expect(keys[2]).toBeGreaterThan(keys[1]!);
    expect(sent.map((r) => r.headers['x-amz-security-token'])).toEqual(keys.map((k) => `token${k}`));
  });
});
