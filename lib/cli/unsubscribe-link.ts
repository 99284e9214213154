/**
 * `ratchet unsubscribe-link <email> [--topic t]`: prints one unsubscribe URL, alone on stdout, so it
 * can be piped or pasted. Key and base URL: `UNSUBSCRIBE_SECRETS` / `UNSUBSCRIBE_BASE_URL` when set;
 * otherwise the running `npm start`'s (its demo key and `http://localhost:$PORT`, via `.data/local.json`).
 * Also runnable on its own: `tsx lib/cli/unsubscribe-link.ts someone@example.com --topic newsletter`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { unsubscribeUrl } from '../../lambdas/client/unsubscribe.js';
import { GLOBAL_TOPIC } from '../../lambdas/core/unsubscribe/token.js';
import { readState } from '../local/state.js';

export interface UnsubscribeLinkContext {
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives the URL; defaults to stdout. */
  out?: (line: string) => void;
  now?: number;
}

/** Prints and returns the URL. Throws (with a message saying what to set) when no key or base URL is known. */
export function unsubscribeLink(email: string, options: { topic?: string } = {}, context: UnsubscribeLinkContext = {}): string {
  const env = context.env ?? process.env;
  const state = env.RATCHET_TARGET === 'aws' ? undefined : readState(resolve(env.RATCHET_DATA_DIR ?? '.data'));
  const secrets = env.UNSUBSCRIBE_SECRETS?.trim() || state?.unsubscribeDemoKey;
  if (!secrets) throw new Error('no unsubscribe key: set UNSUBSCRIBE_SECRETS (on AWS: the value of the secret <prefix>/unsubscribe), or run `npm start`');
  const baseUrl = env.UNSUBSCRIBE_BASE_URL?.trim() || state?.unsubscribeBaseUrl;
  if (!baseUrl) throw new Error('no base URL: set UNSUBSCRIBE_BASE_URL (the stack output UnsubscribeBaseUrl), or run `npm start`');
  const url = unsubscribeUrl({ email, topic: options.topic ?? GLOBAL_TOPIC, secrets, baseUrl, now: context.now, env: {} });
  (context.out ?? ((line: string) => process.stdout.write(`${line}\n`)))(url);
  return url;
}

/** Minimal argv reading for running this file directly; the `ratchet` program parses its own. */
export function parseUnsubscribeLinkArgs(argv: readonly string[]): { email: string; topic?: string } {
  const rest = [...argv];
  let topic: string | undefined;
  const at = rest.findIndex((a) => a === '--topic' || a.startsWith('--topic='));
  if (at >= 0) {
    const arg = rest[at]!;
    topic = arg.includes('=') ? arg.slice('--topic='.length) : rest[at + 1];
    rest.splice(at, arg.includes('=') ? 1 : 2);
    if (!topic) throw new Error('--topic needs a value');
  }
  if (rest.length !== 1 || rest[0]!.startsWith('-')) throw new Error('usage: unsubscribe-link <email> [--topic <topic>]');
  return { email: rest[0]!, topic };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  try {
    const { email, topic } = parseUnsubscribeLinkArgs(process.argv.slice(2));
    unsubscribeLink(email, { topic });
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}
