/** Helpers the sync adapter contract tests share. */
import { expect } from 'vitest';
import type { ProviderListEntry, SyncTarget } from '../../../../lambdas/core/sync/target.js';

export async function listAll(target: SyncTarget): Promise<{ entries: ProviderListEntry[]; pages: number }> {
  const entries: ProviderListEntry[] = [];
  let pages = 0;
  await target.list((page) => {
    pages += 1;
    entries.push(...page);
  });
  return { entries, pages };
}

/** The rejection of a promise, asserting it rejects. */
export async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  expect.fail('expected a rejection');
}

/** Everything an error could show a log: message, stack, own properties (enumerable or not). */
export function everythingIn(error: Error): string {
  const own = Object.getOwnPropertyNames(error).map((k) => {
    try {
      return `${k}=${JSON.stringify((error as unknown as Record<string, unknown>)[k])}`;
    } catch {
      return k;
    }
  });
  return [String(error), error.stack ?? '', ...own, String((error as { cause?: unknown }).cause ?? '')].join('\n');
}
