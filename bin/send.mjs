#!/usr/bin/env node
// Runs bin/send.ts with tsx's ESM loader registered in this process (no second node process, so signals
// and exit codes are the command's own), for `npx ratchet…` and package.json's `bin`.
import { register } from 'tsx/esm/api';

register();
await import('./send.ts');
