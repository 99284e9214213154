/**
 * `GET|POST /unsubscribe/{token}`, transport-neutral (the Lambda handler and the local front both call
 * it). GET only reads: link scanners and mail previews fetch links, so it verifies the token and shows
 * a page with one button. POST (the button, or an RFC 8058 one-click from a mailbox provider) hands the
 * request to the edge under the provider `unsubscribe`, i.e. the same inbox and queue as every webhook.
 * Never a redirect. A bad token is a 400 and nothing is written.
 */
import type { EdgeResponse } from '../pipeline/edge.js';
import type { Log, SecretSource } from '../pipeline/ports.js';
import type { WebhookRequest } from '../request.js';
import type { Clock } from '../time.js';
import { MAX_FORM_BYTES, parseUnsubscribeForm, type UnsubscribeAction } from './form.js';
import {
  confirmPage,
  type ProblemKind,
  problemPage,
  problemText,
  resubscribedPage,
  SECURITY_HEADERS,
  unsubscribedPage,
} from './page.js';
import { UNSUBSCRIBE_PROVIDER, unsubscribeRequestBody } from './provider.js';
import { type PageSettings, pageSettingsFrom } from './settings.js';
import { deriveTokenKeys, maxAgeDaysFromSettings, type UnsubscribeClaims, verifyToken } from './token.js';

export interface UnsubscribeHttpRequest {
  method: string;
  token: string;
  /** Lower-cased names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: Buffer;
}

export interface UnsubscribeHttpResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface UnsubscribeDeps {
  /** The webhook edge (or anything with its `receive`), holding the `unsubscribe` provider. */
  edge: { receive(provider: string, request: WebhookRequest): Promise<EdgeResponse> };
  secrets: SecretSource;
  now: Clock;
  settings: Readonly<Record<string, string | undefined>>;
  log: Log;
}

type Format = 'html' | 'json' | 'text';
type Outcome =
  | { ok: true; action: UnsubscribeAction; claims: UnsubscribeClaims }
  | { ok: false; status: number; problem: ProblemKind };

export class UnsubscribeEndpoint {
  private readonly page: PageSettings;
  private readonly maxAgeDays: number;

  constructor(private readonly deps: UnsubscribeDeps) {
    // Parsed now, so a bad TOPIC_LABELS or max age fails the cold start, not a visitor.
    this.page = pageSettingsFrom(deps.settings);
    this.maxAgeDays = maxAgeDaysFromSettings(deps.settings);
  }

  async handle(request: UnsubscribeHttpRequest): Promise<UnsubscribeHttpResponse> {
    const method = request.method.toUpperCase();
    const format = formatFor(request.headers.accept, method);
    if (method !== 'GET' && method !== 'POST') return this.problem(405, 'bad_request', format, { allow: 'GET, POST' });
    const checked = await this.check(request.token);
    if (!checked.ok) return this.problem(checked.status, checked.problem, format);
    if (method === 'GET')
      return this.respond(200, format, confirmPage(checked.claims, request.token, this.page), { action: 'confirm' });

    const outcome = await this.post(request, checked.claims);
    if (!outcome.ok) return this.problem(outcome.status, outcome.problem, format);
    const { action, claims } = outcome;
    const html =
      action === 'resubscribe'
        ? resubscribedPage(claims, this.page)
        : unsubscribedPage(claims, request.token, this.page);
    const text = action === 'resubscribe' ? 'You are subscribed again.\n' : 'You are unsubscribed.\n';
    return this.respond(200, format, html, { ok: true, action }, text);
  }

  private async check(
    token: string,
  ): Promise<{ ok: true; claims: UnsubscribeClaims } | { ok: false; status: number; problem: ProblemKind }> {
    let secrets: string[];
    try {
      secrets = await this.deps.secrets.credentials(UNSUBSCRIBE_PROVIDER);
    } catch (error) {
      this.deps.log.error('could not load unsubscribe secrets', { error: String(error) });
      return { ok: false, status: 503, problem: 'unavailable' };
    }
    if (secrets.length === 0) return { ok: false, status: 404, problem: 'not_configured' };
    let verified: ReturnType<typeof verifyToken>;
    try {
      verified = verifyToken(token, deriveTokenKeys(secrets), this.deps.now(), this.maxAgeDays);
    } catch (error) {
      // A secret too short to use: the operator's mistake, logged without the secret.
      this.deps.log.error('configuration_error', {
        provider: UNSUBSCRIBE_PROVIDER.name,
        error: error instanceof Error ? error.message : 'invalid secret',
      });
      return { ok: false, status: 503, problem: 'unavailable' };
    }
    if (verified.ok) return verified;
    this.deps.log.warn('unsubscribe token rejected', { reason: verified.reason });
    return { ok: false, status: 400, problem: verified.reason === 'expired' ? 'expired_token' : 'invalid_token' };
  }

  private async post(request: UnsubscribeHttpRequest, claims: UnsubscribeClaims): Promise<Outcome> {
    if (request.body.length > MAX_FORM_BYTES) return { ok: false, status: 413, problem: 'bad_request' };
    const action = parseUnsubscribeForm(request.body, request.headers['content-type']);
    if (!action || (action === 'resubscribe' && claims.topic === '*'))
      return { ok: false, status: 400, problem: 'bad_request' };
    const result = await this.deps.edge.receive(UNSUBSCRIBE_PROVIDER.name, {
      body: unsubscribeRequestBody(request.token, action),
      headers: {},
    });
    if (result.status === 200) return { ok: true, action, claims };
    return {
      ok: false,
      status: result.status >= 500 ? 503 : 400,
      problem: result.status >= 500 ? 'unavailable' : 'invalid_token',
    };
  }

  private problem(
    status: number,
    problem: ProblemKind,
    format: Format,
    extra: Record<string, string> = {},
  ): UnsubscribeHttpResponse {
    const response = this.respond(
      status,
      format,
      problemPage(problem, this.page),
      { error: problem },
      problemText(problem),
    );
    return { ...response, headers: { ...response.headers, ...extra } };
  }

  private respond(
    status: number,
    format: Format,
    html: string,
    json: Record<string, unknown>,
    text = '',
  ): UnsubscribeHttpResponse {
    const [type, body] =
      format === 'json'
        ? ['application/json', JSON.stringify(json)]
        : format === 'text'
          ? ['text/plain; charset=utf-8', text]
          : ['text/html; charset=utf-8', html];
    return { status, headers: { 'content-type': type, ...SECURITY_HEADERS }, body };
  }
}

/**
 * JSON when asked for it; HTML for browsers (and any GET); a short text for the rest, which is what a
 * mailbox provider's one-click POST gets (it sends no `Accept: text/html`).
 */
function formatFor(accept: string | undefined, method: string): Format {
  const value = (accept ?? '').toLowerCase();
  if (value.includes('application/json') && !value.includes('text/html')) return 'json';
  if (value.includes('text/html') || method !== 'POST') return 'html';
  return 'text';
}
