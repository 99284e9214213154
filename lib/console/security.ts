/**
 * The console's guards, each answering before any page code runs:
 * - Host must be `127.0.0.1:<port>` or `localhost:<port>`, else 403: a DNS-rebinding page that
 *   resolves its own name to 127.0.0.1 sends its own Host, and is refused.
 * - The token printed with the URL is exchanged once per browser for an HttpOnly, SameSite=Strict
 *   session cookie (then a redirect drops it from the address bar); without that cookie, 401.
 * - Every POST carries the CSRF token, derived from the session, else 403.
 * - Every answer carries a CSP that allows this origin's stylesheet and nothing else (no script at all).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const SESSION_COOKIE = 'ratchet_console';

export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

export class Secrets {
  /** In the printed URL only. */
  readonly token = randomBytes(32).toString('base64url');
  /** The cookie's value: never in a URL, never in a page. */
  private readonly session = randomBytes(32).toString('base64url');
  /** In every form; useless without the cookie, which a foreign page cannot send (SameSite=Strict) or read (HttpOnly). */
  readonly csrf = createHmac('sha256', this.session).update('csrf').digest('base64url');

  tokenMatches(given: string | null): boolean {
    return given !== null && same(given, this.token);
  }

  sessionCookie(): string {
    return `${SESSION_COOKIE}=${this.session}; HttpOnly; SameSite=Strict; Path=/`;
  }

  hasSession(request: IncomingMessage): boolean {
    const cookies = request.headers.cookie?.split(';') ?? [];
    return cookies.some((c) => {
      const [name, ...value] = c.trim().split('=');
      return name === SESSION_COOKIE && same(value.join('='), this.session);
    });
  }

  csrfMatches(given: string | null): boolean {
    return given !== null && same(given, this.csrf);
  }
}

/** Only this console's own origin, by either loopback name. */
export function hostAllowed(host: string | undefined, port: number): boolean {
  return host === `127.0.0.1:${port}` || host === `localhost:${port}`;
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
