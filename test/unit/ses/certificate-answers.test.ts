/**
 * What a certificate host failure does to an authentic SES envelope, end to end: the real SES provider
 * and WebhookEdge, the production HttpsCertificateFetcher over an injected `https.get`, then both doors
 * the edge code sits behind. Over HTTPS (`POST /webhooks/ses`) the answer must be a 5xx, since SNS counts
 * every 4xx as delivered; on the SES feed the message must be retried, never dead-lettered. What can
 * never be admitted (a bad signature, a certificate URL off the pinned host, a topic off the allowlist,
 * an envelope that does not parse) is still refused, and dead-lettered on its first receive.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  type CertificateGet,
  type CertificateResponse,
  HttpsCertificateFetcher,
} from '../../../lambdas/adapters/sns/certificates.js';
import type { FeedDeadLetter } from '../../../lambdas/core/pipeline/ses-feed.js';
import { SesFeed } from '../../../lambdas/core/pipeline/ses-feed.js';
import { sesProvider } from '../../../lambdas/core/providers/ses/index.js';
import { createEdgeHandler } from '../../../lambdas/handlers/edge-handler.js';
import { edgeWith } from '../pipeline/fakes.js';
import { recordingLog } from '../support/log.js';
import { NOW, notificationFields, OTHER_TOPIC_ARN, signed, signingCertificate, TOPIC_ARN } from './fixtures.js';

type Answer = number | 'timeout' | 'tls' | 'certificate';

/** `https.get` answering every request the same way; counts the requests. */
function host(answer: Answer) {
  let requests = 0;
  const get: CertificateGet = (_url, onResponse) => {
    requests += 1;
    const request = Object.assign(new EventEmitter(), { destroy: () => request });
    if (answer === 'tls')
      setImmediate(() =>
        request.emit('error', Object.assign(new Error('self-signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })),
      );
    if (typeof answer === 'number' || answer === 'certificate') {
      const status = answer === 'certificate' ? 200 : answer;
      const body = Object.assign(new PassThrough(), { statusCode: status, headers: {} });
      setImmediate(() => {
        onResponse(body as unknown as CertificateResponse);
        body.end(answer === 'certificate' ? signingCertificate().certificatePem : '<Error>denied</Error>');
      });
    }
    return request;
  };
  return { get, requests: () => requests };
}

function sesEdge(answer: Answer) {
  const fake = host(answer);
  const built = edgeWith({
    providers: [sesProvider],
    secrets: { credentials: async () => [TOPIC_ARN] },
    certificates: new HttpsCertificateFetcher({ get: fake.get, timeoutMs: 50 }),
    now: () => NOW,
    maxBodyBytes: 256 * 1024,
  });
  return { ...built, requests: fake.requests };
}

const post = (body: string) =>
  ({
    version: '2.0',
    routeKey: 'POST /webhooks/ses',
    rawPath: '/webhooks/ses',
    rawQueryString: '',
    headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
    body,
    isBase64Encoded: false,
    requestContext: { http: { method: 'POST', path: '/webhooks/ses', sourceIp: '54.240.197.1' } },
  }) as unknown as APIGatewayProxyEventV2;

function feedOf(edge: ReturnType<typeof sesEdge>['edge']) {
  const letters: FeedDeadLetter[] = [];
  const feed = new SesFeed({
    edge,
    deadLetters: {
      send: async (batch) => {
        letters.push(...batch);
        return new Set();
      },
    },
    log: recordingLog().log,
    counters: { count: () => undefined },
  });
  return { feed, letters };
}

const authentic = () => JSON.stringify(signed(notificationFields()));

describe('a certificate host that fails, for any reason, leaves an authentic envelope to be retried', () => {
  it.each<Answer>([403, 404, 429, 500, 503, 'timeout', 'tls'])(
    'certificate host %s: POST /webhooks/ses answers 503 (SNS retries), and stores nothing',
    async (answer) => {
      const { edge, inbox, queue, requests } = sesEdge(answer);
      const response = await createEdgeHandler(edge)(post(authentic()));
      expect(response.statusCode).toBe(503);
      expect(JSON.parse(String(response.body))).toEqual({ error: 'transient_failure' });
      expect(requests()).toBe(1);
      expect(inbox.rows.size).toBe(0);
      expect(queue.sent).toHaveLength(0);
    },
  );

  it.each<Answer>([403, 404, 429, 500, 'timeout'])(
    'certificate host %s: the SES feed reports a batch item failure, and dead-letters nothing',
    async (answer) => {
      const { edge, inbox } = sesEdge(answer);
      const { feed, letters } = feedOf(edge);
      expect(await feed.process([{ messageId: 'sqs-1', body: authentic() }])).toEqual(['sqs-1']);
      expect(letters).toEqual([]);
      expect(inbox.rows.size).toBe(0);
    },
  );

  it('the same envelope is admitted once the host answers again', async () => {
    const body = authentic();
    expect((await createEdgeHandler(sesEdge(404).edge)(post(body))).statusCode).toBe(503);
    const { edge, inbox } = sesEdge('certificate');
    expect((await createEdgeHandler(edge)(post(body))).statusCode).toBe(200);
    expect(inbox.rows.size).toBe(1);
  });
});

describe('what can never be admitted is still refused, and dead-lettered on the first receive', () => {
  const badSignature = () => JSON.stringify({ ...signed(notificationFields()), Message: '{"forged":true}' });
  // Judged before any certificate is fetched, so the host's state cannot matter.
  const cases: Array<[string, () => string, number]> = [
    [
      'a certificate URL off the pinned host',
      () =>
        JSON.stringify(
          signed(notificationFields({ SigningCertURL: 'https://certs.example.com/SimpleNotificationService-ab.pem' })),
        ),
      401,
    ],
    ['a topic off the allowlist', () => JSON.stringify(signed(notificationFields({ TopicArn: OTHER_TOPIC_ARN }))), 403],
    ['an envelope that does not parse', () => '{"Type":"Notification",', 400],
  ];

  it.each(cases)(
    '%s: a 4xx over HTTPS, whatever the certificate host does, and nothing fetched',
    async (_, body, status) => {
      for (const answer of ['certificate', 404] as const) {
        const { edge, requests } = sesEdge(answer);
        const response = await createEdgeHandler(edge)(post(body()));
        expect(response.statusCode).toBe(status);
        expect(requests()).toBe(0);
      }
    },
  );

  it('a bad signature: 401 once the certificate is loaded (it is checked against the key)', async () => {
    expect((await createEdgeHandler(sesEdge('certificate').edge)(post(badSignature()))).statusCode).toBe(401);
  });

  it.each([...cases, ['a bad signature', badSignature, 401] as [string, () => string, number]])(
    '%s: moved to the dead-letter queue by the feed on its first receive',
    async (_, body) => {
      const { edge } = sesEdge('certificate');
      const { feed, letters } = feedOf(edge);
      expect(await feed.process([{ messageId: 'sqs-1', body: body() }])).toEqual([]);
      expect(letters.map((l) => l.messageId)).toEqual(['sqs-1']);
    },
  );
});
