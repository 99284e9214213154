/**
 * The ControlLedger port's contract, run against MemoryLedger (unit) and DynamoControlLedger on
 * dynalite (integration): an SNS subscription is confirmed once per message, whichever store says so.
 */
import { describe, expect, it } from 'vitest';
import type { ControlLedger } from '../../lambdas/core/pipeline/ports.js';
import { uniqueId } from './unique-id.js';

const NOW = Date.UTC(2026, 0, 1);

/** `make()` gives a ledger; entries from other cases may share its table. */
export function describeControlLedgerContract(name: string, make: () => ControlLedger | Promise<ControlLedger>) {
  describe(`ControlLedger contract: ${name}`, () => {
    it('a key never marked is not done', async () => {
      const ledger = await make();
      expect(await ledger.isDone(uniqueId('never'))).toBe(false);
    });

    it('a marked key is done, and only that key', async () => {
      const ledger = await make();
      const key = uniqueId('marked');
      await ledger.markDone(key, NOW);
      expect(await ledger.isDone(key)).toBe(true);
      expect(await ledger.isDone(`${key}-other`)).toBe(false);
    });

    it('marking twice is harmless: still done', async () => {
      const ledger = await make();
      const key = uniqueId('twice');
      await ledger.markDone(key, NOW);
      await ledger.markDone(key, NOW + 1_000);
      expect(await ledger.isDone(key)).toBe(true);
    });
  });
}
