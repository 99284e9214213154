/**
 * HttpsCertificateFetcher against an injected request function: no network. The fake hands back
 * plain streams shaped like http.IncomingMessage, so timeouts, caps, redirects, the LRU and request
 * coalescing are exercised exactly as the production code runs them.
 */
import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  type CertificateGet,
  type CertificateResponse,
  HttpsCertificateFetcher,
} from '../../../lambdas/adapters/sns/certificates.js';
import { TransientError } from '../../../lambdas/core/errors.js';
import { rejection, signingCertificate } from './fixtures.js';

const URL_A = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-aa.pem';
const URL_B = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-bb.pem';
const URL_C = 'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-cc.pem';

class FakeRequest extends EventEmitter {
  destroyed = false;
  destroy(): this {
    this.destroyed = true;
    return this;
  }
}

interface Exchange {
  url: string;
  request: FakeRequest;
  /** Send a status line + headers; returns the body stream to write to. */
  respond(status: number, headers?: Record<string, string>): PassThrough;
}

/** A fake `https.get`: each call is recorded, and `serve` decides what happens (default: never answers). */
function fakeGet(serve: (exchange: Exchange) => void = () => {}) {
  const exchanges: Exchange[] = [];
  const get: CertificateGet = (url, onResponse) => {
    const request = new FakeRequest();
    const exchange: Exchange = {
      url: url.href,
      request,
      respond(status, headers = {}) {
        const body = Object.assign(new PassThrough(), { statusCode: status, headers });
        setImmediate(() => onResponse(body as unknown as CertificateResponse));
        return body;
      },
    };
    exchanges.push(exchange);
    serve(exchange);
    return request;
  };
  return { get, exchanges };
}

const servePem = ({ respond }: Exchange) => {
  respond(200, { 'content-type': 'application/x-pem-file' }).end(signingCertificate().certificatePem);
};

describe('HttpsCertificateFetcher', () => {
  it('downloads, parses and returns the certificate public key', async () => {
    const fake = fakeGet(servePem);
    const key = await new HttpsCertificateFetcher({ get: fake.get }).get(URL_A);
    expect(key.equals(signingCertificate().publicKey)).toBe(true);
    expect(fake.exchanges.map((e) => e.url)).toEqual([URL_A]);
  });

  it('accepts a body delivered in many small chunks', async () => {
    const fake = fakeGet(({ respond }) => {
      const body = respond(200);
      const pem = signingCertificate().certificatePem;
      setImmediate(() => {
        for (let i = 0; i < pem.length; i += 100) body.write(pem.slice(i, i + 100));
        body.end();
      });
    });
    const key = await new HttpsCertificateFetcher({ get: fake.get }).get(URL_A);
    expect(key.equals(signingCertificate().publicKey)).toBe(true);
  });

  it('caches the KeyObject: a second get does not fetch again', async () => {
    const fake = fakeGet(servePem);
    const fetcher = new HttpsCertificateFetcher({ get: fake.get });
    const first = await fetcher.get(URL_A);
    const second = await fetcher.get(URL_A);
    expect(second).toBe(first);
    expect(fake.exchanges).toHaveLength(1);
  });

  it('shares one fetch between concurrent requests for the same URL', async () => {
    const fake = fakeGet(servePem);
    const fetcher = new HttpsCertificateFetcher({ get: fake.get });
    const keys = await Promise.all([fetcher.get(URL_A), fetcher.get(URL_A), fetcher.get(URL_A)]);
    expect(fake.exchanges).toHaveLength(1);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBe(keys[0]);
  });

  it('evicts the least recently used entry when the cache is full', async () => {
    const fake = fakeGet(servePem);
    const fetcher = new HttpsCertificateFetcher({ get: fake.get, cacheSize: 2 });
    await fetcher.get(URL_A);
    await fetcher.get(URL_B);
    await fetcher.get(URL_A); // A is now the most recently used
    await fetcher.get(URL_C); // evicts B
    expect(fake.exchanges.map((e) => e.url)).toEqual([URL_A, URL_B, URL_C]);
    await fetcher.get(URL_A); // still cached
    expect(fake.exchanges).toHaveLength(3);
    await fetcher.get(URL_B); // evicted: fetched again
    expect(fake.exchanges.map((e) => e.url)).toEqual([URL_A, URL_B, URL_C, URL_B]);
  });

  it('times out (503) when the host never answers, and aborts the request', async () => {
    const fake = fakeGet();
    const started = Date.now();
    const error = await rejection(new HttpsCertificateFetcher({ get: fake.get, timeoutMs: 50 }).get(URL_A));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/timed out/);
    expect(Date.now() - started).toBeLessThan(1000);
    expect(fake.exchanges[0]!.request.destroyed).toBe(true);
  });

  it('times out when the body trickles past the total deadline', async () => {
    let body: PassThrough | undefined;
    const fake = fakeGet(({ respond }) => {
      body = respond(200);
      body.write('-----BEGIN CERTIFICATE-----\n');
    });
    const error = await rejection(new HttpsCertificateFetcher({ get: fake.get, timeoutMs: 50 }).get(URL_A));
    expect(error).toBeInstanceOf(TransientError);
    expect(body!.destroyed).toBe(true);
  });

  it('refuses a timeout above 2 s and accepts a lower one', () => {
    expect(() => new HttpsCertificateFetcher({ timeoutMs: 2001 })).toThrow(RangeError);
    expect(() => new HttpsCertificateFetcher({ timeoutMs: 0 })).toThrow(RangeError);
    expect(() => new HttpsCertificateFetcher({ timeoutMs: 500 })).not.toThrow();
  });

  it('stops reading a body over the size cap (503: the host misbehaved) and destroys the response', async () => {
    let body: PassThrough | undefined;
    const fake = fakeGet(({ respond }) => {
      body = respond(200);
      setImmediate(() => {
        body!.write(Buffer.alloc(600, 0x41));
        body!.write(Buffer.alloc(600, 0x41));
      });
    });
    const error = await rejection(new HttpsCertificateFetcher({ get: fake.get, maxBytes: 1000 }).get(URL_A));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.message).toMatch(/too large/);
    expect(body!.destroyed).toBe(true);
  });

  it('refuses a declared Content-Length over the cap before reading (503)', async () => {
    const fake = fakeGet(({ respond }) => {
      respond(200, { 'content-length': '20000' });
    });
    const error = await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.message).toMatch(/too large/);
  });

  it.each([301, 302, 307, 308])('does not follow a %i redirect, and retries later (503)', async (status) => {
    const fake = fakeGet(({ respond }) => {
      respond(status, { location: 'https://evil.example/cert.pem' }).end();
    });
    const error = await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/redirect/);
    expect(fake.exchanges).toHaveLength(1);
  });

  // Whatever AWS's host answers is about the host, not the envelope: "later", never "forged".
  it.each([204, 400, 403, 404, 429, 500, 502, 503])(
    'treats HTTP %i from the AWS host as transient (503), even with a certificate in the body',
    async (status) => {
      const fake = fakeGet(({ respond }) => {
        respond(status).end(signingCertificate().certificatePem);
      });
      const error = await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A));
      expect(error).toBeInstanceOf(TransientError);
      expect(error.status).toBe(503);
      expect(error.message).toBe(`SNS certificate host answered ${status}`);
    },
  );

  it('treats a 200 that is not a certificate as transient (503)', async () => {
    const fake = fakeGet(({ respond }) => {
      respond(200).end('<html>hello</html>');
    });
    const error = await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A));
    expect(error).toBeInstanceOf(TransientError);
    expect(error.message).toMatch(/no usable certificate/);
  });

  it('treats a request that cannot even be made as transient (503)', async () => {
    const get: CertificateGet = () => {
      throw new Error('socket hang up');
    };
    expect(await rejection(new HttpsCertificateFetcher({ get }).get(URL_A))).toBeInstanceOf(TransientError);
  });

  it('treats a TLS failure as transient (503)', async () => {
    const fake = fakeGet(({ request }) => {
      setImmediate(() =>
        request.emit(
          'error',
          Object.assign(new Error('unable to verify the first certificate'), {
            code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
          }),
        ),
      );
    });
    expect(await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A))).toBeInstanceOf(TransientError);
  });

  it('treats a connection error as transient (503)', async () => {
    const fake = fakeGet(({ request }) => {
      setImmediate(() =>
        request.emit('error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
      );
    });
    expect(await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A))).toBeInstanceOf(TransientError);
  });

  it('treats a connection cut mid-body as transient', async () => {
    const fake = fakeGet(({ respond }) => {
      const body = respond(200);
      setImmediate(() => {
        body.write('-----BEGIN CERTIFICATE-----\n');
        body.destroy();
      });
    });
    expect(await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A))).toBeInstanceOf(TransientError);
  });

  it('survives a response that errors after it was refused (the error has a listener)', async () => {
    let body: PassThrough | undefined;
    const fake = fakeGet(({ respond }) => {
      body = respond(404);
    });
    expect(await rejection(new HttpsCertificateFetcher({ get: fake.get }).get(URL_A))).toBeInstanceOf(TransientError);
    // What Node does when the socket closes under an incomplete response: an 'error' event.
    expect(() => body!.emit('error', new Error('aborted'))).not.toThrow();
  });

  it.each([403, 404, 429, 503])('does not cache a %i: the next attempt fetches again', async (status) => {
    let attempt = 0;
    const fake = fakeGet((exchange) => {
      attempt += 1;
      if (attempt === 1) exchange.respond(status).end();
      else servePem(exchange);
    });
    const fetcher = new HttpsCertificateFetcher({ get: fake.get });
    expect(await rejection(fetcher.get(URL_A))).toBeInstanceOf(TransientError);
    const key = await fetcher.get(URL_A);
    expect(key.equals(signingCertificate().publicKey)).toBe(true);
    expect(fake.exchanges).toHaveLength(2);
  });
});
