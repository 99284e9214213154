/**
 * An in-memory SyncTarget for the pipeline's tests, before (and beside) the HTTP fakes: it keeps
 * real list state (list name → addresses), answers like the adapters do (idempotent; the lists it
 * changed, in the provider's words), and can be scripted to throw the port's errors for the next N
 * calls or for a span of time. Every call is recorded with its time, so a test can check that no call
 * came before a 429's named time.
 */

import type { SuppressionReason } from '../../lambdas/core/suppression/record.js';
import {
  type ProviderListEntry,
  type SyncOperation,
  type SyncOutcome,
  type SyncProviderName,
  SyncRateLimitedError,
  SyncRefusedError,
  type SyncTarget,
  SyncTransientError,
} from '../../lambdas/core/sync/target.js';

export interface MemoryTargetOptions {
  /** Lists a global suppression goes to, per reason (default: one list named after the provider). */
  globalLists?: (reason: SuppressionReason) => string[];
  /** Scope prefixes this provider holds (`sendgrid:group:`, `postmark:stream:`). */
  scopePrefixes?: string[];
  /** Lists a removal is refused on (Postmark's spam complaints). */
  refuseRemovalFrom?: string[];
  now?: () => number;
}

type Fault = () => Error;

export class MemorySyncTarget implements SyncTarget {
  readonly lists = new Map<string, Set<string>>();
  readonly calls: Array<{ at: number; operation: SyncOperation; outcome: 'ok' | string }> = [];
  private faults: Fault[] = [];
  private downUntil = 0;

  constructor(
    readonly provider: SyncProviderName,
    private readonly options: MemoryTargetOptions = {},
  ) {}

  handlesScope(scope: string): boolean {
    return (this.options.scopePrefixes ?? []).some((prefix) => scope.startsWith(prefix));
  }

  /** The next `count` calls fail with `fault()`, without changing anything. */
  failNext(count: number, fault: Fault): void {
    for (let i = 0; i < count; i++) this.faults.push(fault);
  }

  /** 429 for the next `count` calls, each naming `seconds` from the time of the call. */
  rateLimitNext(count: number, seconds: number): void {
    this.failNext(count, () => new SyncRateLimitedError(this.provider, this.now() + seconds * 1000));
  }

  /** Every call fails as a network error until `ms` from now. */
  downFor(ms: number): void {
    this.downUntil = this.now() + ms;
  }

  refuseWith(status: number): void {
    this.failNext(1, () => new SyncRefusedError(this.provider, status, `${this.provider} refused with ${status}`));
  }

  has(list: string, email: string): boolean {
    return this.lists.get(list)?.has(email) ?? false;
  }

  /** Every list holding `email`. */
  listsOf(email: string): string[] {
    return [...this.lists]
      .filter(([, members]) => members.has(email))
      .map(([name]) => name)
      .sort();
  }

  async apply(operation: SyncOperation): Promise<SyncOutcome> {
    const at = this.now();
    const fault =
      this.faults.shift() ??
      (at < this.downUntil ? () => new SyncTransientError(this.provider, 'connect ECONNREFUSED') : undefined);
    if (fault) {
      const error = fault();
      this.calls.push({ at, operation, outcome: error.name });
      throw error;
    }
    this.calls.push({ at, operation, outcome: 'ok' });
    switch (operation.op) {
      case 'suppress': {
        const lists = this.options.globalLists?.(operation.reason) ?? [this.provider];
        for (const list of lists) this.add(list, operation.email);
        return {
          lists,
          ...(this.provider === 'ses'
            ? { providerReason: operation.reason === 'complaint' ? 'COMPLAINT' : 'BOUNCE' }
            : {}),
        };
      }
      case 'unsuppress': {
        const refused = operation.lists.filter(
          (l) => (this.options.refuseRemovalFrom ?? []).includes(l) && this.has(l, operation.email),
        );
        const removed = operation.lists.filter((l) => !refused.includes(l));
        for (const list of removed) this.lists.get(list)?.delete(operation.email);
        return {
          lists: removed,
          ...(refused.length > 0 ? { refused: refused.map((list) => ({ list, why: 'kept by the provider' })) } : {}),
        };
      }
      case 'suppressScope':
        this.add(operation.scope, operation.email);
        return { lists: [operation.scope] };
      case 'unsuppressScope':
        this.lists.get(operation.scope)?.delete(operation.email);
        return { lists: [operation.scope] };
    }
  }

  async list(onPage: (entries: readonly ProviderListEntry[]) => Promise<void> | void): Promise<void> {
    const entries: ProviderListEntry[] = [];
    for (const [list, members] of this.lists) {
      for (const email of members)
        entries.push({ email, list, ...(this.handlesScope(list) ? { scope: list } : {}), reason: 'memory', date: 0 });
    }
    for (let i = 0; i < entries.length; i += 2) await onPage(entries.slice(i, i + 2));
  }

  private add(list: string, email: string): void {
    let members = this.lists.get(list);
    if (!members) this.lists.set(list, (members = new Set()));
    members.add(email);
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }
}

/** The five providers, with the global lists and scopes the issue describes. */
export function memoryTargets(
  options: { now?: () => number; postmarkStreams?: string[]; mailgunDomains?: string[] } = {},
): Map<SyncProviderName, MemorySyncTarget> {
  const streams = options.postmarkStreams ?? ['outbound'];
  const domains = options.mailgunDomains ?? ['mg.example.com'];
  const mailgunList = (reason: SuppressionReason) =>
    reason === 'complaint' ? 'complaints' : reason === 'hard_bounce' ? 'bounces' : 'unsubscribes';
  return new Map<SyncProviderName, MemorySyncTarget>([
    ['ses', new MemorySyncTarget('ses', { globalLists: () => ['account'], now: options.now })],
    [
      'sendgrid',
      new MemorySyncTarget('sendgrid', {
        globalLists: () => ['global_unsubscribes'],
        scopePrefixes: ['sendgrid:group:'],
        now: options.now,
      }),
    ],
    [
      'postmark',
      new MemorySyncTarget('postmark', {
        globalLists: () => streams.map((s) => `stream:${s}`),
        scopePrefixes: ['postmark:stream:'],
        refuseRemovalFrom: [],
        now: options.now,
      }),
    ],
    [
      'mailgun',
      new MemorySyncTarget('mailgun', {
        globalLists: (reason) => domains.map((d) => `${mailgunList(reason)}@${d}`),
        now: options.now,
      }),
    ],
    ['resend', new MemorySyncTarget('resend', { globalLists: () => ['suppressions'], now: options.now })],
  ]);
}
