/**
 * Cleanup on interruption: whatever a benchmark starts (runtimes, temp dirs) registers an undo here,
 * so Ctrl-C still stops the emulators and removes the temp dirs. Normal paths undo their own work in
 * `finally` and cancel the registration.
 */
type Undo = () => unknown;

const pending = new Set<Undo>();

export function onCleanup(undo: Undo): () => void {
  pending.add(undo);
  return () => void pending.delete(undo);
}

export async function runCleanups(): Promise<void> {
  for (const undo of [...pending].reverse()) {
    pending.delete(undo);
    try {
      await undo();
    } catch {
      // best effort: keep undoing the rest
    }
  }
}
