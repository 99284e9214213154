/**
 * A fake of the SESv2 account-level suppression list, speaking the REST-JSON protocol the real
 * `@aws-sdk/client-sesv2` client speaks, so the adapter is tested with the real SDK.
 *
 * Sources:
 * - PutSuppressedDestination: PUT /v2/email/suppression/addresses, body {EmailAddress, Reason}, Reason is
 *   BOUNCE | COMPLAINT; an existing entry is overwritten.
 *   https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_PutSuppressedDestination.html
 * - GetSuppressedDestination: GET /v2/email/suppression/addresses/{EmailAddress}, 404 NotFoundException.
 *   https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_GetSuppressedDestination.html
 * - DeleteSuppressedDestination: DELETE /v2/email/suppression/addresses/{EmailAddress}, 404 NotFoundException.
 *   https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_DeleteSuppressedDestination.html
 * - ListSuppressedDestinations: GET /v2/email/suppression/addresses?Reason=&StartDate=&EndDate=&NextToken=&PageSize=
 *   (PageSize at most 1000), answers {SuppressedDestinationSummaries, NextToken}; a bad token is
 *   400 InvalidNextTokenException.
 *   https://docs.aws.amazon.com/ses/latest/APIReference-V2/API_ListSuppressedDestinations.html
 * - Errors (restJson1): the type in `x-amzn-errortype`, the text in body `message`; throttling is 429
 *   TooManyRequestsException. https://docs.aws.amazon.com/ses/latest/APIReference-V2/CommonErrors.html
 * - Signature V4: `Authorization: AWS4-HMAC-SHA256 Credential=<key>/<yyyymmdd>/<region>/ses/aws4_request,
 *   SignedHeaders=..., Signature=<64 hex>` plus `x-amz-date`. The signature itself is not checked (the
 *   fake does not recompute it); its shape, the service name, the region and the access key id are.
 *   https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv-signing-request.html
 *   (the names and shapes also match node_modules/@aws-sdk/client-sesv2/dist-cjs/index.js).
 */
import {
  type FakeRequest,
  type FakeResponse,
  isEmail,
  type LoopbackFake,
  parseJson,
  segment,
  startLoopback,
} from './loopback.js';

export interface SesEntry {
  email: string;
  reason: 'BOUNCE' | 'COMPLAINT';
  /** epoch ms */
  lastUpdateTime: number;
}

export interface SesFake extends LoopbackFake {
  readonly region: string;
  readonly credentials: { accessKeyId: string; secretAccessKey: string };
  entries(): SesEntry[];
  get(email: string): SesEntry | undefined;
  seed(email: string, reason: SesEntry['reason'], at?: number): void;
}

export interface SesFakeOptions {
  region?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  now?: () => number;
}

const ERROR_NAMESPACE = 'http://internal.amazon.com/coral/com.amazonaws.sesv2/';

function awsError(status: number, type: string, message: string): FakeResponse {
  return {
    status,
    headers: { 'x-amzn-errortype': `${type}:${ERROR_NAMESPACE}`, 'x-amzn-requestid': crypto.randomUUID() },
    body: { message },
  };
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/\s]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

export async function startSesFake(options: SesFakeOptions = {}): Promise<SesFake> {
  const region = options.region ?? 'us-east-1';
  const credentials = {
    accessKeyId: options.accessKeyId ?? 'AKIDSYNCFAKE',
    secretAccessKey: options.secretAccessKey ?? 'sync-fake-secret',
  };
  const now = options.now ?? Date.now;
  const table = new Map<string, SesEntry>();

  function authorize(request: FakeRequest): FakeResponse | undefined {
    const header = request.headers.authorization;
    if (!header) return awsError(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
    const match = AUTH.exec(header);
    if (!match || !request.headers['x-amz-date']) {
      return awsError(
        403,
        'IncompleteSignatureException',
        'Authorization header requires Credential, SignedHeaders and Signature',
      );
    }
    const [, keyId, , signedRegion, service, signedHeaders] = match;
    if (service !== 'ses')
      return awsError(403, 'InvalidSignatureException', `Credential should be scoped to correct service: 'ses'.`);
    if (signedRegion !== region)
      return awsError(403, 'InvalidSignatureException', `Credential should be scoped to a valid region.`);
    if (!signedHeaders!.split(';').includes('host'))
      return awsError(403, 'InvalidSignatureException', 'host must be a signed header');
    if (keyId !== credentials.accessKeyId) {
      return awsError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    }
    return undefined;
  }

  function list(query: URLSearchParams): FakeResponse {
    const pageSize = query.has('PageSize') ? Number(query.get('PageSize')) : 1000;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
      return awsError(400, 'BadRequestException', 'PageSize must be between 1 and 1000');
    const reasons = query.getAll('Reason');
    if (reasons.some((r) => r !== 'BOUNCE' && r !== 'COMPLAINT'))
      return awsError(400, 'BadRequestException', 'Invalid Reason');
    let start = 0;
    const token = query.get('NextToken');
    if (token !== null) {
      const decoded = Number(
        Buffer.from(token, 'base64url')
          .toString('utf8')
          .replace(/^offset:/, ''),
      );
      if (
        !Number.isInteger(decoded) ||
        decoded < 0 ||
        !Buffer.from(token, 'base64url').toString('utf8').startsWith('offset:')
      ) {
        return awsError(400, 'InvalidNextTokenException', 'The NextToken is invalid');
      }
      start = decoded;
    }
    const all = [...table.values()]
      .filter((e) => reasons.length === 0 || reasons.includes(e.reason))
      .sort((a, b) => a.email.localeCompare(b.email));
    const page = all.slice(start, start + pageSize);
    const next =
      start + pageSize < all.length ? Buffer.from(`offset:${start + pageSize}`).toString('base64url') : undefined;
    return {
      status: 200,
      body: {
        SuppressedDestinationSummaries: page.map((e) => ({
          EmailAddress: e.email,
          Reason: e.reason,
          LastUpdateTime: e.lastUpdateTime / 1000,
        })),
        ...(next ? { NextToken: next } : {}),
      },
    };
  }

  const fake = await startLoopback(
    (request) => {
      const refused = authorize(request);
      if (refused) return refused;
      const base = '/v2/email/suppression/addresses';
      if (request.path === base && request.method === 'PUT') {
        const body = parseJson(request.body) as { EmailAddress?: unknown; Reason?: unknown } | undefined;
        if (!body || typeof body !== 'object') return awsError(400, 'BadRequestException', 'Invalid JSON body');
        if (!isEmail(body.EmailAddress)) return awsError(400, 'BadRequestException', 'Invalid email address');
        if (body.Reason !== 'BOUNCE' && body.Reason !== 'COMPLAINT')
          return awsError(400, 'BadRequestException', 'Reason must be BOUNCE or COMPLAINT');
        table.set(body.EmailAddress.toLowerCase(), {
          email: body.EmailAddress,
          reason: body.Reason,
          lastUpdateTime: now(),
        });
        return { status: 200, body: {} };
      }
      if (request.path === base && request.method === 'GET') return list(request.query);
      if (request.path.startsWith(`${base}/`)) {
        const email = segment(request.path.slice(base.length + 1));
        const entry = table.get(email.toLowerCase());
        if (request.method === 'GET') {
          if (!entry) return awsError(404, 'NotFoundException', 'Email address not on suppression list');
          return {
            status: 200,
            body: {
              SuppressedDestination: {
                EmailAddress: entry.email,
                Reason: entry.reason,
                LastUpdateTime: entry.lastUpdateTime / 1000,
              },
            },
          };
        }
        if (request.method === 'DELETE') {
          if (!entry) return awsError(404, 'NotFoundException', 'Email address not on suppression list');
          table.delete(email.toLowerCase());
          return { status: 200, body: {} };
        }
      }
      return awsError(404, 'UnknownOperationException', 'No such operation');
    },
    {
      now,
      faultHeaders: (status) => ({
        'x-amzn-errortype': `${status === 429 ? 'TooManyRequestsException' : 'InternalFailure'}:${ERROR_NAMESPACE}`,
      }),
      faultBody: (status) => ({ message: status === 429 ? 'Too Many Requests' : 'Service Unavailable' }),
    },
  );

  return Object.assign(fake, {
    region,
    credentials,
    entries: () => [...table.values()].map((e) => ({ ...e })),
    get: (email: string) => {
      const entry = table.get(email.toLowerCase());
      return entry ? { ...entry } : undefined;
    },
    seed: (email: string, reason: SesEntry['reason'], at = now()) =>
      void table.set(email.toLowerCase(), { email, reason, lastUpdateTime: at }),
  });
}
