/**
 * SES: the account-level suppression list of the region (SESv2), through the real SDK client.
 *
 * SES knows two reasons only, BOUNCE and COMPLAINT, and either blocks every send from the account, so a
 * complaint is stored as COMPLAINT and every other global suppression (hard bounce, unsubscribe,
 * soft-bounce limit, manual) as BOUNCE; the outcome carries the stored reason. SES has no per-topic
 * suppression here (topics live in SES contact lists), so no scope.
 *
 * Reference (https://docs.aws.amazon.com/ses/latest/APIReference-V2/):
 * - API_PutSuppressedDestination.html: PUT /v2/email/suppression/addresses, an upsert (idempotent).
 * - API_GetSuppressedDestination.html: GET .../addresses/{EmailAddress}; NotFoundException when absent.
 * - API_DeleteSuppressedDestination.html: DELETE .../addresses/{EmailAddress}; NotFoundException means already gone.
 * - API_ListSuppressedDestinations.html: GET .../addresses, paged by NextToken, PageSize at most 1000.
 * - CommonErrors.html: throttling is 429 TooManyRequestsException. SES sends no reset header, so a 429
 *   without Retry-After pauses for the default.
 * No batching (no batchKey/applyMany): PutSuppressedDestination takes one address per call, and the only
 * bulk path, CreateImportJob, reads a file from S3 and finishes asynchronously (API_CreateImportJob.html).
 * The client makes one attempt per call (maxAttempts 1): the sync worker owns retries, backoff and the
 * per-provider pause, and a hidden SDK retry would call SES again before the time a 429 named.
 */
import {
  DeleteSuppressedDestinationCommand,
  GetSuppressedDestinationCommand,
  ListSuppressedDestinationsCommand,
  PutSuppressedDestinationCommand,
  SESv2Client,
} from '@aws-sdk/client-sesv2';
import {
  type ProviderListEntry,
  type SyncOperation,
  type SyncOutcome,
  SyncRateLimitedError,
  SyncRefusedError,
  type SyncTarget,
  SyncTransientError,
} from '../../core/sync/target.js';
import {
  DEFAULT_RATE_LIMIT_PAUSE_MS,
  type HttpDeps,
  parseRetryAfter,
  rateLimitedUntil,
  scrub,
  waitingOutRateLimits,
} from './http.js';
import { foreignLists, removalOutcome } from './removal.js';
import { providerHandlesScope } from './scopes.js';

export interface SesSyncConfig {
  readonly region: string;
  /** SES_API_ENDPOINT: a fake, LocalStack, or a FIPS endpoint. */
  readonly endpoint?: string;
  /** Static credentials (a local endpoint); otherwise the default AWS credential chain. */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

export interface SesSyncDeps
  extends Pick<HttpDeps, 'rateLimitWaits' | 'rateLimitMaxWaitMs' | 'onRateLimitWait' | 'sleep'> {
  readonly now?: () => number;
  readonly timeoutMs?: number;
  readonly pageSize?: number;
  /** A prebuilt client (tests that inject faults); otherwise one is built from the config. */
  readonly client?: SESv2Client;
}

const LIST = 'account';

interface AwsError {
  name?: string;
  message?: string;
  $fault?: 'client' | 'server';
  $metadata?: { httpStatusCode?: number };
  $response?: { headers?: Record<string, string | undefined> };
}

export function createSesClient(config: SesSyncConfig, timeoutMs = 10_000): SESv2Client {
  return new SESv2Client({
    region: config.region,
    maxAttempts: 1,
    requestHandler: { requestTimeout: timeoutMs, connectionTimeout: timeoutMs },
    ...(config.endpoint ? { endpoint: config.endpoint } : {}),
    ...(config.credentials ? { credentials: { ...config.credentials } } : {}),
  });
}

export class SesSyncTarget implements SyncTarget {
  readonly provider = 'ses' as const;
  private readonly client: SESv2Client;
  private readonly now: () => number;
  private readonly pageSize: number;

  constructor(
    config: SesSyncConfig,
    private readonly deps: SesSyncDeps = {},
  ) {
    this.client = deps.client ?? createSesClient(config, deps.timeoutMs);
    this.now = deps.now ?? Date.now;
    this.pageSize = deps.pageSize ?? 1000;
  }

  handlesScope(scope: string): boolean {
    return providerHandlesScope('ses', scope);
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    if (operation.op === 'suppress') {
      const reason = operation.reason === 'complaint' ? 'COMPLAINT' : 'BOUNCE';
      await this.call('PutSuppressedDestination', () =>
        this.client.send(new PutSuppressedDestinationCommand({ EmailAddress: operation.email, Reason: reason })),
      );
      return { lists: [LIST], providerReason: reason };
    }
    if (operation.op !== 'unsuppress') return { lists: [] };
    const refused = foreignLists(operation.lists, (l) => l === LIST, 'SES');
    if (!operation.lists.includes(LIST)) return removalOutcome([], refused);
    await this.call(
      'DeleteSuppressedDestination',
      () => this.client.send(new DeleteSuppressedDestinationCommand({ EmailAddress: operation.email })),
      'NotFoundException',
    );
    return removalOutcome([LIST], refused);
  }

  /**
   * Reads only: API_GetSuppressedDestination.html (GET .../addresses/{EmailAddress}; NotFoundException
   * when absent). A suppression is held when the entry has the reason Ratchet would put (a BOUNCE entry
   * does not hold a complaint: the push moves it to COMPLAINT).
   */
  async held(operation: SyncOperation): Promise<SyncOutcome | undefined> {
    if (operation.op === 'suppress') {
      const reason = operation.reason === 'complaint' ? 'COMPLAINT' : 'BOUNCE';
      const stored = await this.stored(operation.email);
      return stored === reason ? { lists: [LIST], providerReason: reason } : undefined;
    }
    if (operation.op !== 'unsuppress' || !operation.lists.includes(LIST)) return undefined;
    if ((await this.stored(operation.email)) !== undefined) return undefined;
    const refused = foreignLists(operation.lists, (l) => l === LIST, 'SES');
    return removalOutcome([LIST], refused);
  }

  /** The reason SES stores for `email`, undefined when it is not on the list. */
  private async stored(email: string): Promise<string | undefined> {
    const answer = await this.call(
      'GetSuppressedDestination',
      () => this.client.send(new GetSuppressedDestinationCommand({ EmailAddress: email })),
      'NotFoundException',
    );
    return answer?.SuppressedDestination?.Reason;
  }

  async list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void> {
    let token: string | undefined;
    do {
      const page = await this.call('ListSuppressedDestinations', () =>
        this.client.send(
          new ListSuppressedDestinationsCommand({ PageSize: this.pageSize, ...(token ? { NextToken: token } : {}) }),
        ),
      );
      const entries: ProviderListEntry[] = (page?.SuppressedDestinationSummaries ?? [])
        .filter((s) => typeof s.EmailAddress === 'string')
        .map((s) => ({
          email: s.EmailAddress!,
          list: LIST,
          ...(s.Reason ? { reason: s.Reason } : {}),
          ...(s.LastUpdateTime ? { date: s.LastUpdateTime.getTime() } : {}),
        }));
      await onPage(entries);
      token = page?.NextToken;
    } while (token);
  }

  /** Runs one SDK call and turns its failure into the port's errors; `gone` names the error that means success. */
  private call<T>(operation: string, run: () => Promise<T>, gone?: string): Promise<T | undefined> {
    return waitingOutRateLimits(() => this.callOnce(operation, run, gone), this.deps, this.now);
  }

  private async callOnce<T>(operation: string, run: () => Promise<T>, gone?: string): Promise<T | undefined> {
    try {
      return await run();
    } catch (caught) {
      const error = caught as AwsError;
      if (gone !== undefined && error.name === gone) return undefined;
      const status = error.$metadata?.httpStatusCode;
      const what = `ses ${operation}: ${status !== undefined ? `HTTP ${status} ` : ''}${error.name ?? 'Error'}`;
      const detail = error.message ? ` (${scrub(error.message, [])})` : '';
      if (status === 429 || error.name === 'TooManyRequestsException') {
        const now = this.now();
        const retryAt =
          parseRetryAfter(error.$response?.headers?.['retry-after'], now) ?? now + DEFAULT_RATE_LIMIT_PAUSE_MS;
        throw new SyncRateLimitedError('ses', rateLimitedUntil(retryAt, now));
      }
      if (status === undefined || status >= 500 || error.$fault === 'server')
        throw new SyncTransientError('ses', `${what}${detail}`);
      throw new SyncRefusedError('ses', status, `${what}${detail}`);
    }
  }
}
