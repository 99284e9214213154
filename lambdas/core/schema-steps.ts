/**
 * How a stored shape changes over time: an ordered list of steps, each reading one version and
 * returning the next. A table's reader runs every step from the version an item was written with up to
 * today's, so code past the reader only ever sees today's shape, and an old item is never rewritten just
 * to be read.
 *
 * Adding a version is adding one step at the end of the list (its `from` is the version today's code
 * writes); the chain's current version follows. Two changes made side by side that both add a step
 * both claim the same `from`, and `schemaChain` refuses that list when the module loads, so the merge
 * has to put them in order instead of silently skipping one.
 */

export interface SchemaStep<T> {
  /** The version this step reads; it returns the shape of version `from + 1`. */
  readonly from: number;
  /** What changed at `from + 1`, for people reading the list. */
  readonly change: string;
  /** Pure: returns a new item (never mutates its argument). */
  readonly upgrade: (item: T) => T;
}

export interface SchemaChain<T> {
  /** The version today's code writes: one more than the last step's `from` (1 with no steps). */
  readonly current: number;
  /**
   * `item`, written with `version`, in today's shape. A version newer than `current` is returned as is:
   * steps only ever add or derive fields, so an older reader still finds the ones it knows (writers
   * check `isNewer` themselves before they overwrite such an item).
   */
  upgrade(item: T, version: number): T;
  /** True for a version written by newer code than this. */
  isNewer(version: number): boolean;
}

/** The first version of every table: what items carry that were written before the version attribute. */
export const FIRST_VERSION = 1;

export function schemaChain<T>(table: string, steps: readonly SchemaStep<T>[]): SchemaChain<T> {
  steps.forEach((step, index) => {
    if (step.from !== FIRST_VERSION + index) {
      throw new Error(
        `${table} schema step ${index + 1} reads version ${step.from}, expected ${FIRST_VERSION + index}: keep the steps in order, one per version`,
      );
    }
  });
  const current = FIRST_VERSION + steps.length;
  return {
    current,
    isNewer: (version) => version > current,
    upgrade(item, version) {
      if (!Number.isInteger(version) || version < FIRST_VERSION)
        throw new TypeError(`${table} schema version ${String(version)} is not a version`);
      let upgraded = item;
      for (const step of steps.slice(version - FIRST_VERSION)) upgraded = step.upgrade(upgraded);
      return upgraded;
    },
  };
}
