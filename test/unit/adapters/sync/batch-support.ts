/** Helpers the batched-push tests (applyMany) share. */
import type { SyncOperation, SyncOutcome, SyncTarget } from '../../../../lambdas/core/sync/target.js';
import type { LoopbackFake } from '../../../fakes/providers/loopback.js';

/**
 * What `apply` answers for each operation alone, in order, against a target built on a fresh fake: the
 * answers `applyMany` must give entry by entry. Hands back the fake (its lists to compare), to be closed.
 */
export async function appliedAlone<F extends LoopbackFake>(
  start: () => Promise<F>,
  build: (fake: F) => SyncTarget,
  operations: readonly SyncOperation[],
): Promise<{ outcomes: SyncOutcome[]; fake: F }> {
  const fake = await start();
  const target = build(fake);
  const outcomes: SyncOutcome[] = [];
  for (const operation of operations) outcomes.push(await target.apply(operation));
  return { outcomes, fake };
}

/** `n` distinct addresses: `batch0@example.com` ... */
export const addresses = (n: number, prefix = 'batch'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}${i}@example.com`);

/** A raw POST to a fake, as a client other than the adapter would send it. */
export async function post(
  url: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  try {
    return { status: response.status, body: JSON.parse(text) };
  } catch {
    return { status: response.status, body: text };
  }
}
