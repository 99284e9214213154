/**
 * Calls made close together go out as one request: `add(item)` joins the open batch and settles with
 * that batch's `flush`. A batch opens with its first item and is flushed when it holds `max` items or
 * when `windowMs` has passed (0: at the end of the current turn of the event loop, so only calls that
 * are ready together join, and nothing waits on a timer). Used where a write path sends one small
 * message per change and SQS takes ten a request (the consumer's sync fast path): concurrent writes
 * share one SendMessageBatch instead of one SendMessage each.
 */
export interface CoalesceOptions {
  /** Most items a batch holds (SQS: 10 entries a SendMessageBatch). */
  max: number;
  /** How long a batch stays open for more, ms. @default 0 (the current turn of the event loop) */
  windowMs?: number;
}

export function coalescing<T>(
  flush: (items: T[]) => Promise<void>,
  options: CoalesceOptions,
): (item: T) => Promise<void> {
  interface Batch {
    items: T[];
    done: Promise<void>;
    close(): void;
  }
  let open: Batch | undefined;
  const openBatch = (): Batch => {
    let release!: () => void;
    const ready = new Promise<void>((resolve) => {
      release = resolve;
    });
    const windowMs = options.windowMs ?? 0;
    let cancelTimer: () => void;
    if (windowMs > 0) {
      const timer = setTimeout(() => batch.close(), windowMs);
      cancelTimer = () => clearTimeout(timer);
    } else {
      const immediate = setImmediate(() => batch.close());
      cancelTimer = () => clearImmediate(immediate);
    }
    const batch: Batch = {
      items: [],
      // Detached as it closes, so a call made after it closed opens the next batch.
      close: () => {
        if (open === batch) open = undefined;
        cancelTimer();
        release();
      },
      done: ready.then(() => flush(batch.items)),
    };
    return batch;
  };
  return (item) => {
    open ??= openBatch();
    const batch = open;
    batch.items.push(item);
    if (batch.items.length >= options.max) batch.close();
    return batch.done;
  };
}
