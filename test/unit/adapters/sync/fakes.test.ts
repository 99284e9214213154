/**
 * The fakes refuse what the real APIs refuse (so a green contract test means the adapter sent what the
 * provider accepts, not that the fake accepts anything), and their scripted faults behave as described.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ProviderFakes, startProviderFakes } from '../../../fakes/providers/index.js';

let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
});
afterAll(() => fakes.close());

const json = (body: unknown) => JSON.stringify(body);
async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* text */
  }
  return { status: response.status, body, headers: response.headers };
}

describe('SendGrid fake', () => {
  const auth = () => ({ authorization: `Bearer ${fakes.sendgrid.apiKey}`, 'content-type': 'application/json' });
  it('refuses a missing or wrong key with 401 and SendGrid’s error shape', async () => {
    for (const authorization of [undefined, 'Bearer SG.nope', fakes.sendgrid.apiKey]) {
      const answer = await call(`${fakes.sendgrid.url}/v3/asm/groups`, {
        headers: authorization ? { authorization } : {},
      });
      expect(answer).toMatchObject({
        status: 401,
        body: { errors: [{ field: null, message: 'authorization required' }] },
      });
    }
  });
  it('refuses a body without recipient_emails, or with a bad address, and writes nothing', async () => {
    const url = `${fakes.sendgrid.url}/v3/asm/suppressions/global`;
    expect((await call(url, { method: 'POST', headers: auth(), body: json({}) })).status).toBe(400);
    expect((await call(url, { method: 'POST', headers: auth(), body: json({ recipient_emails: [] }) })).status).toBe(
      400,
    );
    expect(
      (await call(url, { method: 'POST', headers: auth(), body: json({ recipient_emails: ['no-at-sign'] }) })).status,
    ).toBe(400);
    expect(fakes.sendgrid.list('unsubscribes')).toEqual([]);
  });
  it('refuses a page larger than 500 and carries the rate-limit headers on every answer', async () => {
    const answer = await call(`${fakes.sendgrid.url}/v3/suppression/bounces?limit=501`, { headers: auth() });
    expect(answer.status).toBe(400);
    expect(Number(answer.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
  });
  it('has no route to add a bounce (the real API cannot)', async () => {
    expect(
      (
        await call(`${fakes.sendgrid.url}/v3/suppression/bounces`, {
          method: 'POST',
          headers: auth(),
          body: json([{ email: 'a@example.com' }]),
        })
      ).status,
    ).toBe(404);
  });
});

describe('Postmark fake', () => {
  const auth = () => ({ 'x-postmark-server-token': fakes.postmark.serverToken, 'content-type': 'application/json' });
  it('refuses a wrong token with 401 ErrorCode 10', async () => {
    const answer = await call(`${fakes.postmark.url}/message-streams/outbound/suppressions/dump`, {
      headers: { 'x-postmark-server-token': 'nope' },
    });
    expect(answer).toMatchObject({ status: 401, body: { ErrorCode: 10 } });
  });
  it('refuses invalid JSON, a missing Suppressions array and an unknown stream with 422; a bad address fails per row', async () => {
    const url = `${fakes.postmark.url}/message-streams/outbound/suppressions`;
    expect(await call(url, { method: 'POST', headers: auth(), body: '{' })).toMatchObject({
      status: 422,
      body: { ErrorCode: 402 },
    });
    expect((await call(url, { method: 'POST', headers: auth(), body: json({}) })).status).toBe(422);
    expect(
      (
        await call(`${fakes.postmark.url}/message-streams/nope/suppressions`, {
          method: 'POST',
          headers: auth(),
          body: json({ Suppressions: [{ EmailAddress: 'a@example.com' }] }),
        })
      ).status,
    ).toBe(422);
    const bad = await call(url, {
      method: 'POST',
      headers: auth(),
      body: json({ Suppressions: [{ EmailAddress: 'bad' }] }),
    });
    expect(bad).toMatchObject({ status: 200, body: { Suppressions: [{ EmailAddress: 'bad', Status: 'Failed' }] } });
    expect(fakes.postmark.stream('outbound')).toEqual([]);
  });
});

describe('Mailgun fake', () => {
  const basic = (key: string) => `Basic ${Buffer.from(`api:${key}`).toString('base64')}`;
  it('refuses a wrong key with 401 Forbidden', async () => {
    const answer = await call(`${fakes.mailgun.url}/v3/mg.example.com/bounces`, {
      headers: { authorization: basic('wrong') },
    });
    expect(answer).toEqual(expect.objectContaining({ status: 401, body: 'Forbidden' }));
  });
  it('refuses a bad address, a non-array JSON body, an unknown domain and an unknown content type; writes nothing', async () => {
    const headers = { authorization: basic(fakes.mailgun.apiKey), 'content-type': 'application/json' };
    const url = `${fakes.mailgun.url}/v3/mg.example.com/complaints`;
    expect((await call(url, { method: 'POST', headers, body: json([{ address: 'bad' }]) })).status).toBe(400);
    expect((await call(url, { method: 'POST', headers, body: json({ address: 'a@example.com' }) })).status).toBe(400);
    expect(
      (
        await call(url, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'text/plain' },
          body: 'a@example.com',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(`${fakes.mailgun.url}/v3/other.example.com/complaints`, {
          method: 'POST',
          headers,
          body: json([{ address: 'a@example.com' }]),
        })
      ).status,
    ).toBe(404);
    expect(fakes.mailgun.list('mg.example.com', 'complaints')).toEqual([]);
  });
  it('accepts one record as form data too, and a delete of an absent address is 404', async () => {
    const headers = { authorization: basic(fakes.mailgun.apiKey), 'content-type': 'application/x-www-form-urlencoded' };
    expect(
      (
        await call(`${fakes.mailgun.url}/v3/mg.example.com/unsubscribes`, {
          method: 'POST',
          headers,
          body: 'address=f%40example.com&tag=*',
        })
      ).status,
    ).toBe(200);
    expect(fakes.mailgun.list('mg.example.com', 'unsubscribes')).toMatchObject([
      { address: 'f@example.com', tags: ['*'] },
    ]);
    expect(
      (await call(`${fakes.mailgun.url}/v3/mg.example.com/bounces/none%40example.com`, { method: 'DELETE', headers }))
        .status,
    ).toBe(404);
  });
});

describe('Resend fake', () => {
  it('answers 401 missing_api_key without a key and 403 invalid_api_key with a wrong one', async () => {
    expect(await call(`${fakes.resend.url}/suppressions`)).toMatchObject({
      status: 401,
      body: { name: 'missing_api_key' },
    });
    expect(
      await call(`${fakes.resend.url}/suppressions`, { headers: { authorization: 'Bearer re_no' } }),
    ).toMatchObject({ status: 403, body: { name: 'invalid_api_key' } });
  });
  it('refuses a missing or bad email and a limit over 100', async () => {
    const headers = { authorization: `Bearer ${fakes.resend.apiKey}`, 'content-type': 'application/json' };
    expect((await call(`${fakes.resend.url}/suppressions`, { method: 'POST', headers, body: json({}) })).status).toBe(
      422,
    );
    expect(
      (await call(`${fakes.resend.url}/suppressions`, { method: 'POST', headers, body: json({ email: 'bad' }) }))
        .status,
    ).toBe(400);
    expect((await call(`${fakes.resend.url}/suppressions?limit=101`, { headers })).status).toBe(422);
    expect(fakes.resend.entries()).toEqual([]);
  });
});

describe('SES fake', () => {
  const good = (date = '20260101') =>
    `AWS4-HMAC-SHA256 Credential=${fakes.ses.credentials.accessKeyId}/${date}/${fakes.ses.region}/ses/aws4_request, SignedHeaders=host;x-amz-date, Signature=${'a'.repeat(64)}`;
  const get = (authorization?: string) =>
    call(`${fakes.ses.url}/v2/email/suppression/addresses`, {
      headers: { ...(authorization ? { authorization } : {}), 'x-amz-date': '20260101T000000Z' },
    });
  it('accepts a well-formed SigV4 header for service ses', async () => {
    expect((await get(good())).status).toBe(200);
  });
  it('refuses a missing, malformed, wrong-service, wrong-region or unknown-key signature, with x-amzn-errortype', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, 'MissingAuthenticationTokenException'],
      ['Bearer x', 'IncompleteSignatureException'],
      [good().replace('/ses/', '/email/'), 'InvalidSignatureException'],
      [good().replace(`/${fakes.ses.region}/`, '/eu-west-9/'), 'InvalidSignatureException'],
      [good().replace(fakes.ses.credentials.accessKeyId, 'AKIDOTHER'), 'UnrecognizedClientException'],
    ];
    for (const [authorization, type] of cases) {
      const answer = await get(authorization);
      expect(answer.status).toBe(403);
      expect(answer.headers.get('x-amzn-errortype')).toMatch(new RegExp(`^${type}:`));
    }
  });
  it('refuses a bad Reason, a bad address and a bad NextToken with 400', async () => {
    const headers = { authorization: good(), 'x-amz-date': '20260101T000000Z', 'content-type': 'application/json' };
    const put = (body: unknown) =>
      call(`${fakes.ses.url}/v2/email/suppression/addresses`, { method: 'PUT', headers, body: json(body) });
    expect((await put({ EmailAddress: 'a@example.com', Reason: 'UNSUBSCRIBE' })).status).toBe(400);
    expect((await put({ EmailAddress: 'bad', Reason: 'BOUNCE' })).status).toBe(400);
    const token = await call(`${fakes.ses.url}/v2/email/suppression/addresses?NextToken=garbage`, { headers });
    expect(token.status).toBe(400);
    expect(token.headers.get('x-amzn-errortype')).toMatch(/^InvalidNextTokenException:/);
    expect(fakes.ses.entries()).toEqual([]);
  });
});

describe('scripted faults', () => {
  it('answers 429 with the scripted headers N times, then the route again, recording each call and its time', async () => {
    const fake = fakes.resend;
    fake.clearCalls();
    fake.rateLimit(2, { 'retry-after': '2' });
    const headers = { authorization: `Bearer ${fake.apiKey}` };
    const a = await call(`${fake.url}/suppressions`, { headers });
    const b = await call(`${fake.url}/suppressions`, { headers });
    const c = await call(`${fake.url}/suppressions`, { headers });
    expect([a.status, b.status, c.status]).toEqual([429, 429, 200]);
    expect(a.headers.get('retry-after')).toBe('2');
    expect(a.body).toMatchObject({ name: 'rate_limit_exceeded' });
    expect(fake.calls.map((x) => x.status)).toEqual([429, 429, 200]);
    expect(fake.calls.every((x) => typeof x.at === 'number' && x.at <= Date.now())).toBe(true);
  });
  it('"down" refuses connections for the time given, then serves again', async () => {
    const fake = fakes.postmark;
    await fake.down(200, 'refused');
    await expect(fetch(`${fake.url}/message-streams/outbound/suppressions/dump`)).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 300));
    expect(
      (
        await call(`${fake.url}/message-streams/outbound/suppressions/dump`, {
          headers: { 'x-postmark-server-token': fake.serverToken },
        })
      ).status,
    ).toBe(200);
  });
  it('"down" in 503 mode answers 503 for the time given', async () => {
    const fake = fakes.mailgun;
    await fake.down(200, '503');
    expect((await call(`${fake.url}/v3/mg.example.com/bounces`)).status).toBe(503);
    await new Promise((r) => setTimeout(r, 250));
    expect((await call(`${fake.url}/v3/mg.example.com/bounces`)).status).toBe(401);
  });
  it('startProviderFakes gives the environment that points sync at every fake', () => {
    expect(fakes.env).toMatchObject({
      SYNC_PROVIDERS: 'ses,sendgrid,postmark,mailgun,resend',
      SES_API_ENDPOINT: fakes.ses.url,
      SENDGRID_API_URL: fakes.sendgrid.url,
      POSTMARK_API_URL: fakes.postmark.url,
      MAILGUN_API_URL: fakes.mailgun.url,
      MAILGUN_DOMAINS: 'mg.example.com,mg2.example.com',
      RESEND_API_URL: fakes.resend.url,
    });
    expect(
      Object.values(fakes.env)
        .filter((v) => v.startsWith('http'))
        .every((v) => v.startsWith('http://127.0.0.1:')),
    ).toBe(true);
  });
});
