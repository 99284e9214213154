#!/usr/bin/env node
// package.json's `bin` entry. In this repository it runs bin/ratchet.ts with tsx's ESM loader registered in
// this process (no second node process, so signals and exit codes are the command's own). The
// published package ships no sources: there it runs the bundle `npm run build` made (dist/bin).
import { existsSync } from 'node:fs';

if (existsSync(new URL('./ratchet.ts', import.meta.url))) {
  const { register } = await import('tsx/esm/api');
  register();
  await import('./ratchet.ts');
} else {
  await import('../dist/bin/ratchet.mjs');
}
