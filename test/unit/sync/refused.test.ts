/**
 * `sync.<provider>.refused` is a set (one entry per list), and a refusal that no longer applies (the
 * address was suppressed in that scope again) is dropped, so it cannot keep the outbox marker parked.
 */
import { describe, expect, it } from 'vitest';
import { markerAfter } from '../../../lambdas/core/sync/ledger.js';
import { type ProviderSyncState, recordOutcome } from '../../../lambdas/core/sync/state.js';

const EMAIL = 'a@example.com';
const scope = 'postmark:stream:broadcast';
const optIn = { op: 'unsuppressScope', email: EMAIL, scope } as const;
const optOut = { op: 'suppressScope', email: EMAIL, scope } as const;
const kept = { list: 'stream:broadcast', why: 'SpamComplaint kept' };

describe('refused is a set', () => {
  it('opt-out / opt-in cycles with the same refusal leave one entry, not one per cycle', () => {
    let state: ProviderSyncState | undefined;
    for (let cycle = 0; cycle < 4; cycle++) {
      state = recordOutcome(state, optOut, { lists: ['stream:broadcast'] }, 10 * cycle);
      // The provider keeps it (a spam complaint): refused again on every opt-in.
      state = recordOutcome(state, optIn, { lists: [], refused: [kept] }, 10 * cycle + 5);
      expect(state.refused).toEqual([kept]);
    }
  });

  it('a second refusal of the same list keeps the latest reason; another list is added beside it', () => {
    const first = recordOutcome(undefined, optIn, { lists: [], refused: [kept] }, 1);
    const again = recordOutcome(first, optIn, { lists: [], refused: [{ list: kept.list, why: 'still kept' }] }, 2);
    expect(again.refused).toEqual([{ list: kept.list, why: 'still kept' }]);
    const other = recordOutcome(again, optIn, { lists: [], refused: [{ list: 'account', why: 'x' }] }, 3);
    expect(other.refused).toEqual([
      { list: 'account', why: 'x' },
      { list: kept.list, why: 'still kept' },
    ]);
  });

  it('an unsuppress refusing one list twice in its answer records it once', () => {
    const state = recordOutcome(
      { at: 1, lists: ['account'], reason: 'complaint' },
      { op: 'unsuppress', email: EMAIL, lists: ['account'] },
      { lists: [], refused: [kept, kept] },
      2,
    );
    expect(state.refused).toEqual([kept]);
  });
});

describe('a stale refusal does not park the marker', () => {
  it('suppressed in that scope again: the refusal for its list is dropped, and the caught-up marker clears', () => {
    const refusedState = recordOutcome(undefined, optIn, { lists: [], refused: [kept] }, 1);
    expect(markerAfter({ sync: { postmark: { ...refusedState, change: 1 } }, change: 1 }, ['postmark'])).toEqual({
      due: expect.any(Number),
    });
    const again = recordOutcome(refusedState, optOut, { lists: ['stream:broadcast'] }, 2);
    expect(again).not.toHaveProperty('refused');
    expect(markerAfter({ sync: { postmark: { ...again, change: 2 } }, change: 2 }, ['postmark'])).toBe('clear');
  });

  it('a refusal for another list stays (it still applies)', () => {
    const state = recordOutcome(
      { at: 1, lists: [], refused: [kept, { list: 'account', why: 'kept' }] },
      optOut,
      { lists: ['stream:broadcast'] },
      2,
    );
    expect(state.refused).toEqual([{ list: 'account', why: 'kept' }]);
  });

  it('a refusal named by the scope itself is dropped too, whatever lists the new answer names', () => {
    // The state names a scope's list by the scope when the provider's answer named none (suppressScope).
    const state = recordOutcome(
      { at: 1, lists: [], refused: [{ list: scope, why: 'kept' }, kept, { list: 'account', why: 'kept' }] },
      optOut,
      { lists: ['stream:broadcast'] },
      2,
    );
    expect(state.refused).toStrictEqual([{ list: 'account', why: 'kept' }]);
    expect(state.scopes).toStrictEqual({ [scope]: ['stream:broadcast'] });
  });
});
