/**
 * Shares one provider call between the suppressions a worker pushes to the same list at the same time.
 * Most providers take a list per request (SyncTarget.batchKey, maxBatch, applyMany), and the gate
 * (sync-gate.ts) counts requests, not addresses: at Resend's 2 requests a second a backlog of 100,000
 * suppressions pushed one per call takes 14 hours, and about 8 minutes at 100 a call.
 *
 * A push that finds a call for its list waiting for its slot (held for the rate, or for a place in
 * flight) rides in it instead of taking a slot of its own; otherwise it opens one, through the gate as
 * any call. A batch stays open until the gate starts it, and one turn of the event loop more, so the
 * pushes of one SQS batch (their records arrive in one read) meet in it. So batches form exactly when
 * calls wait: at a provider with room to spare each push still goes alone at once, and at a busy one a
 * call carries everything that queued behind it, up to the provider's cap.
 *
 * Each push still reads, plans and records on its own (core/sync/push.ts): only the request is shared.
 * A batch's fate before it runs (a pause, a hand-back with a turn, the outbox) is every rider's, as the
 * riders would have met it a moment later. Its answer is split back per entry: an entry the provider
 * refused alone fails alone; a refusal of the whole request is retried one push at a time, each through
 * the gate, so one address the provider will not take cannot sink the others. Removals and opt-ins
 * (letsMailThrough) never wait in a batch: they go ahead of the line on their own.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { CallTicket } from '../core/sync/ask-first.js';
import {
  letsMailThrough,
  type SyncOperation,
  type SyncOutcome,
  SyncRefusedError,
  type SyncTarget,
  SyncTransientError,
} from '../core/sync/target.js';

/** The gate as the batcher uses it (sync-gate.ts ProviderGate). */
export interface CallGate {
  run<T>(call: () => Promise<T>, options?: { ticket?: CallTicket; urgent?: boolean }): Promise<T>;
}

interface Rider {
  operation: SyncOperation;
  ticket?: CallTicket;
  resolve(outcome: SyncOutcome): void;
  reject(error: unknown): void;
}

interface OpenBatch {
  riders: Rider[];
}

export class ProviderBatcher {
  private readonly open = new Map<string, OpenBatch>();
  private readonly maxBatch: number;

  constructor(
    private readonly target: SyncTarget,
    private readonly gate: CallGate,
  ) {
    this.maxBatch = target.applyMany && target.batchKey ? Math.max(1, target.maxBatch ?? 1) : 1;
  }

  /** `target.apply(operation)` through the gate, sharing the request with other pushes to the same list. */
  apply(operation: SyncOperation, ticket?: CallTicket): Promise<SyncOutcome> {
    const urgent = letsMailThrough(operation);
    // The next call of a message already under way (a push after its lookup) takes the slot the gate keeps
    // for it, alone: riding a batch that is then handed back would send it round to look up again.
    const alone = urgent || ticket?.started === true || this.maxBatch === 1;
    const key = alone ? undefined : this.target.batchKey!(operation);
    if (key === undefined) return this.gate.run(() => this.target.apply(operation), { ticket, urgent });
    return new Promise<SyncOutcome>((resolve, reject) => {
      const rider: Rider = { operation, ticket, resolve, reject };
      const waiting = this.open.get(key);
      if (waiting && waiting.riders.length < this.maxBatch) {
        // Its own turn, if it had one, is not needed: the slot it reserved goes unused, which only slows.
        if (ticket) ticket.turnAtMs = undefined;
        waiting.riders.push(rider);
        return;
      }
      const batch: OpenBatch = { riders: [rider] };
      this.open.set(key, batch);
      void this.send(key, batch, ticket);
    });
  }

  private async send(key: string, batch: OpenBatch, ticket: CallTicket | undefined): Promise<void> {
    const close = () => {
      if (this.open.get(key) === batch) this.open.delete(key);
    };
    let answers: ReadonlyArray<SyncOutcome | SyncRefusedError>;
    try {
      answers = await this.gate.run(
        async () => {
          // One more turn of the event loop: pushes that reached the gate in the same tick ride along.
          await nextTurn();
          close();
          for (const rider of batch.riders) if (rider.ticket) rider.ticket.started = true;
          return this.call(batch.riders.map((r) => r.operation));
        },
        { ticket },
      );
    } catch (error) {
      close();
      if (error instanceof SyncRefusedError && batch.riders.length > 1) return this.oneByOne(batch.riders);
      for (const rider of batch.riders) rider.reject(error);
      return;
    }
    batch.riders.forEach((rider, i) => {
      const answer = answers[i];
      if (answer instanceof SyncRefusedError) rider.reject(answer);
      else rider.resolve(answer!);
    });
  }

  private async call(operations: SyncOperation[]): Promise<ReadonlyArray<SyncOutcome | SyncRefusedError>> {
    if (operations.length === 1) return [await this.target.apply(operations[0]!)];
    const answers = await this.target.applyMany!(operations);
    if (answers.length !== operations.length)
      throw new SyncTransientError(
        this.target.provider,
        `${this.target.provider} batch answered ${answers.length} entries for ${operations.length}`,
      );
    return answers;
  }

  /** The provider refused the whole request: each push alone, through the gate, as the next call of its message. */
  private async oneByOne(riders: readonly Rider[]): Promise<void> {
    await Promise.all(
      riders.map((rider) =>
        this.gate
          .run(() => this.target.apply(rider.operation), { ticket: rider.ticket ?? { started: true } })
          .then(rider.resolve, rider.reject),
      ),
    );
  }
}
