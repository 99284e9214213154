/**
 * Fetches SNS signing certificates over HTTPS for the production edge. The URL reaching here has
 * already passed the core gate (AWS's SNS host for the topic's region), so this class is about
 * being a well-behaved, bounded client: one short deadline for the whole exchange, a size cap, no
 * redirects, one fetch per URL however many requests arrive at once, and a bounded cache.
 *
 * Every way the fetch can fail is transient (TransientError, 503): the gate has already judged the
 * envelope's URL, so whatever AWS's host answers (any status, 403, 404 and 429 included, a redirect, a
 * body that is too large or not a certificate, a timeout, a TLS or connection error) says something
 * about the host at that moment, never that the envelope is forged. A 4xx here would be final: SNS
 * counts it as delivered over HTTPS, and the SES feed dead-letters it on its first receive. Only the
 * signature check, once a key is loaded, can refuse the envelope.
 */
import type { KeyObject } from 'node:crypto';
import * as https from 'node:https';
import { TransientError } from '../../core/errors.js';
import type { CertificateSource } from '../../core/provider.js';
import { publicKeyFromCertificate } from './certificate-key.js';

/** The part of an `http.IncomingMessage` we use, so tests can hand in a plain stream. */
export interface CertificateResponse {
  readonly statusCode?: number | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(error?: Error): unknown;
}

/** The part of an `http.ClientRequest` we use. */
export interface CertificateRequest {
  on(event: 'error', listener: (error: Error) => void): unknown;
  destroy(error?: Error): unknown;
}

/** `https.get`, narrowed; injected so tests never touch the network. */
export type CertificateGet = (url: URL, onResponse: (response: CertificateResponse) => void) => CertificateRequest;

/** Node's https.get with TLS verification on; it follows no redirects by itself. */
export const nodeHttpsGet: CertificateGet = (url, onResponse) =>
  https.get(url, { headers: { accept: 'application/x-pem-file, */*' } }, onResponse);

export interface HttpsCertificateFetcherOptions {
  /**
   * Deadline for connect + TLS + headers + body together, ms. At most 2000 (the default): the edge
   * must answer SNS well inside its 15 s timeout, and a 503 is cheaper than a hung Lambda.
   */
  timeoutMs?: number;
  /** Certificates are ~2 KB; anything over this (default 16 KiB) is not one. */
  maxBytes?: number;
  /** Distinct certificate URLs kept (default 32). SNS rotates rarely and uses one URL per region. */
  cacheSize?: number;
  get?: CertificateGet;
}

export const MAX_CERTIFICATE_TIMEOUT_MS = 2000;

export class HttpsCertificateFetcher implements CertificateSource {
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly request: CertificateGet;
  private readonly cache: LruCache<string, KeyObject>;
  private readonly inFlight = new Map<string, Promise<KeyObject>>();

  constructor(options: HttpsCertificateFetcherOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? MAX_CERTIFICATE_TIMEOUT_MS;
    this.maxBytes = options.maxBytes ?? 16 * 1024;
    this.request = options.get ?? nodeHttpsGet;
    this.cache = new LruCache(options.cacheSize ?? 32);
    if (!(this.timeoutMs > 0 && this.timeoutMs <= MAX_CERTIFICATE_TIMEOUT_MS)) {
      throw new RangeError(`timeoutMs must be in (0, ${MAX_CERTIFICATE_TIMEOUT_MS}]`);
    }
    if (!(this.maxBytes > 0)) throw new RangeError('maxBytes must be positive');
  }

  get(url: string): Promise<KeyObject> {
    const cached = this.cache.get(url);
    if (cached) return Promise.resolve(cached);
    let pending = this.inFlight.get(url);
    if (!pending) {
      // Failures are not cached: the next SNS retry gets a fresh attempt.
      pending = this.load(url).finally(() => this.inFlight.delete(url));
      this.inFlight.set(url, pending);
    }
    return pending;
  }

  private async load(url: string): Promise<KeyObject> {
    const pem = await this.download(url);
    let key: KeyObject;
    try {
      key = publicKeyFromCertificate(pem);
    } catch (cause) {
      // AWS's host served something that is not its certificate (a maintenance page, a cut body).
      throw new TransientError('SNS certificate host served no usable certificate', { cause });
    }
    this.cache.set(url, key);
    return key;
  }

  private download(url: string): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      let settled = false;
      let request: CertificateRequest | undefined;
      let response: CertificateResponse | undefined;
      const finish = (error: Error | undefined, body?: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) {
          response?.destroy();
          request?.destroy();
          reject(error);
        } else {
          resolve(body!);
        }
      };
      const timer = setTimeout(() => finish(new TransientError('SNS certificate fetch timed out')), this.timeoutMs);

      const onResponse = (res: CertificateResponse): void => {
        response = res;
        // Listen before anything can destroy the response: an unheard 'error' would crash the process.
        res.on('error', (error) => finish(new TransientError('SNS certificate download failed', { cause: error })));
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          finish(statusError(status));
          return;
        }
        const declared = Number(headerValue(res.headers['content-length']));
        if (Number.isFinite(declared) && declared > this.maxBytes) {
          finish(new TransientError('SNS certificate response is too large'));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk) => {
          size += chunk.length;
          if (size > this.maxBytes) return finish(new TransientError('SNS certificate response is too large'));
          chunks.push(chunk);
        });
        res.on('end', () => finish(undefined, Buffer.concat(chunks)));
        // A connection cut mid-body closes without 'end'.
        res.on('close', () => finish(new TransientError('SNS certificate download was cut short')));
      };

      try {
        request = this.request(new URL(url), onResponse);
      } catch (error) {
        return finish(new TransientError('SNS certificate request could not be made', { cause: error }));
      }
      request.on('error', (error) => finish(new TransientError('SNS certificate host unreachable', { cause: error })));
    });
  }
}

/**
 * Any status but 200 is transient. A redirect is still never followed (the gate validated *this* URL,
 * not wherever it points), and a 403, 404 or 429 from AWS's host means "not now" as much as a 5xx does:
 * the envelope is retried (a 503 to SNS, a batch item failure on the feed), never refused.
 */
function statusError(status: number): TransientError {
  if (status >= 300 && status <= 399)
    return new TransientError(`SNS certificate host redirected (${status}); redirects are not followed`);
  return new TransientError(`SNS certificate host answered ${status}`);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Map keeps insertion order: re-inserting on read makes the first key the least recently used. */
class LruCache<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly capacity: number) {
    if (!(capacity >= 1)) throw new RangeError('cacheSize must be at least 1');
  }

  get(key: K): V | undefined {
    const value = this.entries.get(key);
    if (value !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.capacity) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
  }
}
