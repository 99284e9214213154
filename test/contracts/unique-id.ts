/** Ids unique across cases and runs, so contract cases can share one emulator table without clearing it. */
import { randomUUID } from 'node:crypto';

export function uniqueId(label: string): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}
