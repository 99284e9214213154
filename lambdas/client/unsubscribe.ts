/**
 * One-click unsubscribe links for sending code (RFC 8058): put `unsubscribeHeaders(...)` on every
 * subscription message, and `unsubscribeUrl(...)` in its footer. Configuration comes from options or
 * from the environment: `UNSUBSCRIBE_SECRETS` (comma-separated; the first issues) and
 * `UNSUBSCRIBE_BASE_URL` (the stack output `UnsubscribeBaseUrl`, or `http://localhost:3000` locally).
 */
import { deriveTokenKeys, issueToken, parseSecretList } from '../core/unsubscribe/token.js';

export interface UnsubscribeLinkOptions {
  /** The recipient. Normalized (trimmed, lower-cased) before it is sealed into the token. */
  email: string;
  /** A topic name (`newsletter`), or `*` for a global unsubscribe. */
  topic: string;
  /** Overrides `UNSUBSCRIBE_SECRETS`: one secret, a comma-separated list, or an array (first issues). */
  secrets?: string | readonly string[];
  /** Epoch ms; defaults to now. */
  now?: number;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface UnsubscribeUrlOptions extends UnsubscribeLinkOptions {
  /** Overrides `UNSUBSCRIBE_BASE_URL`, e.g. `https://abc123.execute-api.eu-west-1.amazonaws.com`. */
  baseUrl?: string;
}

export const LIST_UNSUBSCRIBE_POST = 'List-Unsubscribe=One-Click';

/** A URL-safe token sealing the address and the topic (AES-256-GCM); valid for `UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS` at the receiver. */
export function issueUnsubscribeToken(options: UnsubscribeLinkOptions): string {
  const env = options.env ?? process.env;
  const secrets =
    typeof options.secrets === 'string'
      ? parseSecretList(options.secrets)
      : (options.secrets ?? parseSecretList(env.UNSUBSCRIBE_SECRETS));
  if (secrets.length === 0) throw new Error('no unsubscribe secret: pass `secrets` or set UNSUBSCRIBE_SECRETS');
  return issueToken(
    { email: options.email, topic: options.topic },
    deriveTokenKeys(secrets),
    options.now ?? Date.now(),
  );
}

/** `<base>/unsubscribe/<token>`: the link for a footer, and the one the headers carry. */
export function unsubscribeUrl(options: UnsubscribeUrlOptions): string {
  return `${baseUrlOf(options)}/unsubscribe/${issueUnsubscribeToken(options)}`;
}

/**
 * The two headers RFC 8058 asks for. Mailbox providers only honour an HTTPS link, so a plain-HTTP base
 * URL is refused unless it points at this machine (local development). Sign them with DKIM.
 */
export function unsubscribeHeaders(options: UnsubscribeUrlOptions): {
  'List-Unsubscribe': string;
  'List-Unsubscribe-Post': string;
} {
  const url = unsubscribeUrl(options);
  const { protocol, hostname } = new URL(url);
  if (protocol !== 'https:' && !['localhost', '127.0.0.1', '[::1]'].includes(hostname)) {
    throw new Error('List-Unsubscribe needs an https:// base URL (RFC 8058)');
  }
  return { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': LIST_UNSUBSCRIBE_POST };
}

function baseUrlOf(options: UnsubscribeUrlOptions): string {
  const raw = options.baseUrl ?? (options.env ?? process.env).UNSUBSCRIBE_BASE_URL;
  if (!raw) throw new Error('no unsubscribe base URL: pass `baseUrl` or set UNSUBSCRIBE_BASE_URL');
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error('the unsubscribe base URL must be http(s)');
  if (url.search || url.hash || url.username || url.password)
    throw new Error('the unsubscribe base URL must have no query, fragment or credentials');
  return url.href.replace(/\/+$/, '');
}
