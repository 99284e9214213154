/**
 * The one HTTP path every REST sync adapter takes: global fetch with a timeout, and each provider's answer
 * turned into the port's three failures (SyncRateLimitedError, SyncTransientError, SyncRefusedError).
 *
 * Error messages name the operation by its route template (`DELETE /v3/asm/suppressions/global/{email}`),
 * never the URL: a URL carries the address, and nothing here ever carries a key. A provider's own error
 * text is quoted only after every address in it is redacted and every secret is blanked.
 */
import {
  type SyncProviderName,
  SyncRateLimitedError,
  SyncRefusedError,
  SyncTransientError,
} from '../../core/sync/target.js';

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

/** What the factory injects: tests pass a clock and a fetch, production takes the globals. */
export interface HttpDeps {
  readonly fetch?: Fetch;
  readonly now?: () => number;
  /** Per request; default 10 s. */
  readonly timeoutMs?: number;
  /**
   * How many 429s in a row one request waits out, sleeping until the time the provider named, before it
   * throws SyncRateLimitedError. Default 0: the sync worker owns its pauses (the shared gate). The CLI's
   * `sync reconcile` calls providers itself, page after page, and waits instead of failing the run.
   */
  readonly rateLimitWaits?: number;
  /** A 429 naming a longer pause than this is thrown at once (a quota, not a burst): no caller hangs for hours. */
  readonly rateLimitMaxWaitMs?: number;
  /** Told before each such wait (the CLI says it on stderr). */
  readonly onRateLimitWait?: (error: SyncRateLimitedError) => void;
  readonly sleep?: (ms: number) => Promise<void>;
}

/** `run` again after each 429 it throws, at the time the 429 named, up to `deps.rateLimitWaits` times in a row. */
export async function waitingOutRateLimits<T>(
  run: () => Promise<T>,
  deps: Pick<HttpDeps, 'rateLimitWaits' | 'rateLimitMaxWaitMs' | 'onRateLimitWait' | 'sleep'>,
  now: () => number,
): Promise<T> {
  const waits = deps.rateLimitWaits ?? 0;
  const longest = deps.rateLimitMaxWaitMs ?? Number.POSITIVE_INFINITY;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  for (let waited = 0; ; waited++) {
    try {
      return await run();
    } catch (error) {
      if (!(error instanceof SyncRateLimitedError) || waited >= waits) throw error;
      const pause = Math.max(0, error.retryAtMs - now());
      if (pause > longest) throw error;
      deps.onRateLimitWait?.(error);
      await sleep(pause);
    }
  }
}

/** When a 429 names no time: a short pause, the worker's own backoff spreads the rest. */
export const DEFAULT_RATE_LIMIT_PAUSE_MS = 1000;
/**
 * The longest a 429 pauses a provider, whatever its header names. Unbounded, a bogus or misread header
 * (a Retry-After of years) would stop the provider for every worker (the shared pause only moves
 * forward), leaving its changes neither pushed nor dead-lettered; past the last Date (8.64e15 ms) the
 * rate-limit error could not even be built. A provider that means longer answers 429 again an hour on.
 */
export const MAX_RATE_LIMIT_PAUSE_MS = 3_600_000;

/** When a 429's pause ends: the provider's time, not before now and at most MAX_RATE_LIMIT_PAUSE_MS on. */
export function rateLimitedUntil(retryAtMs: number, now: number): number {
  return Math.min(now + MAX_RATE_LIMIT_PAUSE_MS, Math.max(retryAtMs, now));
}
const DEFAULT_TIMEOUT_MS = 10_000;

/** `alice@example.com` → `a***@example.com`: enough to tell two addresses apart in a log, not to mail one. */
export function redactEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 0) return '***';
  return `${email.slice(0, Math.min(1, at))}***${email.slice(at)}`;
}

/** Redacts every address in a provider's text (plain or percent-encoded) and blanks every secret, then bounds its length. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text.replace(/[^\s"'<>(),;:]+@[^\s"'<>(),;:]+/g, (m) => redactEmail(m));
  // The same address percent-encoded, as a URL carries it (a page that quotes the request path).
  out = out.replace(/[^\s"'<>(),;:/?&=]+%40[^\s"'<>(),;:/?&=]+/gi, (m) => redactEmail(m.replace(/%40/i, '@')));
  for (const secret of secrets) if (secret) out = out.split(secret).join('***');
  return out.length > 200 ? `${out.slice(0, 200)}…` : out;
}

/**
 * `Retry-After` (RFC 9110: delay-seconds or an HTTP-date) as an epoch-ms instant, or undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return now + Math.ceil(Number(trimmed) * 1000);
  // An HTTP-date always names its day or month; a bare number that is not delay-seconds ("-3") is no date.
  if (!/[A-Za-z]/.test(trimmed)) return undefined;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : date;
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly url: string;
  /** The route template, for error messages: never the URL itself. */
  readonly label: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** Non-2xx statuses the caller handles itself (a 404 on delete means "already gone"). */
  readonly accept?: readonly number[];
}

export interface HttpAnswer {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON when the body is JSON, the text otherwise, undefined when empty. */
  readonly body: unknown;
}

export interface ProviderHttpOptions {
  readonly provider: SyncProviderName;
  /** Sent on every request (the auth header). */
  readonly headers: Readonly<Record<string, string>>;
  /** Every value that must never appear in an error message (the key and its encodings). */
  readonly secrets: readonly string[];
  /** The provider's own reset header, read when a 429 has no Retry-After; epoch ms or undefined. */
  readonly resetAt?: (headers: Headers, now: number) => number | undefined;
}

export class ProviderHttp {
  private readonly fetch: Fetch;
  readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(
    private readonly options: ProviderHttpOptions,
    private readonly deps: HttpDeps = {},
  ) {
    this.fetch = deps.fetch ?? ((input, init) => globalThis.fetch(input, init));
    this.now = deps.now ?? Date.now;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  send(request: HttpRequest): Promise<HttpAnswer> {
    return waitingOutRateLimits(() => this.sendOnce(request), this.deps, this.now);
  }

  private async sendOnce(request: HttpRequest): Promise<HttpAnswer> {
    const { provider } = this.options;
    let response: Response;
    let body: unknown;
    try {
      response = await this.fetch(request.url, {
        method: request.method,
        headers: { accept: 'application/json', ...this.options.headers, ...request.headers },
        ...(request.body !== undefined ? { body: request.body } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'error',
      });
      const text = await response.text();
      body = text === '' ? undefined : parseBody(text, response.headers.get('content-type'));
    } catch (error) {
      // No `cause`: undici's errors can quote the URL, and the URL carries the address.
      throw new SyncTransientError(provider, `${provider} ${request.label}: ${networkReason(error)}`);
    }
    const { status } = response;
    if ((status >= 200 && status < 300) || request.accept?.includes(status))
      return { status, headers: response.headers, body };
    const now = this.now();
    if (status === 429) {
      const retryAt =
        parseRetryAfter(response.headers.get('retry-after'), now) ??
        this.options.resetAt?.(response.headers, now) ??
        now + DEFAULT_RATE_LIMIT_PAUSE_MS;
      throw new SyncRateLimitedError(provider, rateLimitedUntil(retryAt, now));
    }
    const detail = providerMessage(body);
    const text = `${provider} ${request.label}: HTTP ${status}${detail ? ` (${scrub(detail, this.options.secrets)})` : ''}`;
    if (status >= 500 || status === 408) throw new SyncTransientError(provider, text);
    throw new SyncRefusedError(provider, status, text);
  }
}

function parseBody(text: string, contentType: string | null): unknown {
  if (contentType?.includes('json') || /^[[{]/.test(text.trim())) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

function networkReason(error: unknown): string {
  const err = error as { name?: string; cause?: { code?: unknown } } | undefined;
  if (err?.name === 'TimeoutError' || err?.name === 'AbortError') return 'timed out';
  const code = err?.cause?.code;
  return typeof code === 'string' && /^[A-Z_]+$/.test(code) ? `network error ${code}` : 'network error';
}

/** The human part of each provider's error shape: SendGrid errors[].message, Postmark Message, Mailgun/Resend message. */
function providerMessage(body: unknown): string | undefined {
  // Generously bounded here, exactly by scrub after it redacts: a cut first could split an address and leave its local part.
  if (typeof body === 'string') return body.slice(0, 1_000);
  if (!body || typeof body !== 'object') return undefined;
  const b = body as {
    errors?: { message?: unknown }[];
    Message?: unknown;
    message?: unknown;
    ErrorCode?: unknown;
    name?: unknown;
  };
  if (Array.isArray(b.errors)) return b.errors.map((e) => String(e?.message ?? '')).join('; ');
  if (typeof b.Message === 'string')
    return `${b.ErrorCode !== undefined ? `ErrorCode ${String(b.ErrorCode)}: ` : ''}${b.Message}`;
  if (typeof b.message === 'string') return `${typeof b.name === 'string' ? `${b.name}: ` : ''}${b.message}`;
  return undefined;
}

/** `encodeURIComponent` for a path segment (an address's `@` and `+` included). */
export const pathSegment = (value: string) => encodeURIComponent(value);
