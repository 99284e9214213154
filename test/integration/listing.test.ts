/**
 * The adapters' listing methods, on dynalite: the local recovery and the CLI read the tables through
 * these, so only the adapters name attributes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoInbox } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import { startTestStack, type TestStack } from './harness.js';

const event = (provider: string, id: string, kind: NormalizedEvent['kind'] = 'complaint'): NormalizedEvent => ({
  provider,
  eventId: id,
  recipient: `${id}@example.com`,
  kind,
  occurredAt: 1_700_000_000_000,
  detail: {},
  raw: `{"id":"${id}"}`,
});

type Listed = Awaited<ReturnType<DynamoSuppressionStore['get']>> & {};
async function collect(
  store: DynamoSuppressionStore,
  options: Parameters<DynamoSuppressionStore['scan']>[0],
): Promise<Listed[]> {
  const out: Listed[] = [];
  await store.scan(options, (records) => void out.push(...records));
  return out;
}

describe('listing through the adapters', () => {
  let stack: TestStack;
  let inbox: DynamoInbox;
  let suppressions: DynamoSuppressionStore;
  beforeAll(async () => {
    stack = await startTestStack();
    inbox = new DynamoInbox(stack.clients.doc, stack.config.inboxTable, { ttlSeconds: 3600 });
    suppressions = new DynamoSuppressionStore(stack.clients.doc, stack.config.suppressionTable);
  });
  afterAll(() => stack?.stop());

  it('the suppression store lists records, by status, and in parallel segments that add up to the whole', async () => {
    for (let i = 0; i < 12; i++)
      await suppressions.apply(event('generic', `s${i}`, i % 3 === 0 ? 'soft_bounce' : 'hard_bounce'));

    const all = await collect(suppressions, {});
    expect(all.map((r) => r.email).sort()).toEqual(Array.from({ length: 12 }, (_, i) => `s${i}@example.com`).sort());
    expect(all.every((r) => typeof r.version === 'number')).toBe(true);
    const suppressed = await collect(suppressions, { status: 'suppressed' });
    expect(suppressed.map((r) => r.email).sort()).toEqual(
      all
        .filter((r) => r.status === 'suppressed')
        .map((r) => r.email)
        .sort(),
    );
    expect(suppressed).toHaveLength(8);
    expect((await collect(suppressions, { status: 'active' })).map((r) => r.status)).toEqual([
      'active',
      'active',
      'active',
      'active',
    ]);

    // Three parallel segments: every record exactly once.
    expect((await collect(suppressions, { segments: 3 })).map((r) => r.email).sort()).toEqual(
      all.map((r) => r.email).sort(),
    );
  });
});
