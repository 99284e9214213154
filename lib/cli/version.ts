/** The package's version, for `--version`: read from package.json, the one place it is written. */
import { readFileSync } from 'node:fs';

export function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}
