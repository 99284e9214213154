/**
 * `ratchet unsubscribe-link <email> [--topic t]`: prints one unsubscribe URL, alone on stdout, so it
 * can be piped or pasted. Key and base URL: `UNSUBSCRIBE_SECRETS` / `UNSUBSCRIBE_BASE_URL` when set;
 * otherwise the running `npm start`'s (its demo key and `http://localhost:$PORT`, via `.data/local.json`);
 * otherwise, on AWS, the secret `UNSUBSCRIBE_SECRET_ARN` or `ratchet/unsubscribe` (default credential chain),
 * with `UNSUBSCRIBE_BASE_URL` required (the stack output `UnsubscribeBaseUrl`).
 * Also runnable on its own: `tsx lib/cli/unsubscribe-link.ts someone@example.com --topic newsletter`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { unsubscribeUrl } from '../../lambdas/client/unsubscribe.js';
import { GLOBAL_TOPIC } from '../../lambdas/core/unsubscribe/token.js';
import { resourceNames } from '../definitions.js';
import { readState } from '../local/state.js';
import { targetSetting } from './target.js';

export interface UnsubscribeLinkContext {
  env?: Readonly<Record<string, string | undefined>>;
  /** Receives the URL; defaults to stdout. */
  out?: (line: string) => void;
  now?: number;
  /** Reads a Secrets Manager secret's string (tests replace it); defaults to GetSecretValue. */
  readSecret?: (secretId: string, region: string) => Promise<string | undefined>;
}

/** Prints and returns the URL. Rejects (with a message saying what to set) when no key or base URL is found. */
export async function unsubscribeLink(
  email: string,
  options: { topic?: string } = {},
  context: UnsubscribeLinkContext = {},
): Promise<string> {
  const env = context.env ?? process.env;
  const state = targetSetting(env) === 'aws' ? undefined : readState(resolve(env.RATCHET_DATA_DIR ?? '.data'));
  const baseUrl = env.UNSUBSCRIBE_BASE_URL?.trim() || state?.unsubscribeBaseUrl;
  if (!baseUrl)
    throw new Error('no base URL: set UNSUBSCRIBE_BASE_URL (the stack output UnsubscribeBaseUrl), or run `npm start`');
  let secrets = env.UNSUBSCRIBE_SECRETS?.trim() || state?.unsubscribeDemoKey;
  if (!secrets) {
    const secretId = env.UNSUBSCRIBE_SECRET_ARN || resourceNames().secret('unsubscribe');
    const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1';
    try {
      secrets = (await (context.readSecret ?? readSecretValue)(secretId, region))?.trim();
    } catch (error) {
      throw new Error(
        `no unsubscribe key: set UNSUBSCRIBE_SECRETS, run \`npm start\`, or give access to the secret ${secretId} (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (!secrets) throw new Error(`no unsubscribe key: the secret ${secretId} is empty`);
  }
  const url = unsubscribeUrl({
    email,
    topic: options.topic ?? GLOBAL_TOPIC,
    secrets,
    baseUrl,
    now: context.now,
    env: {},
  });
  (context.out ?? ((line: string) => process.stdout.write(`${line}\n`)))(url);
  return url;
}

async function readSecretValue(secretId: string, region: string): Promise<string | undefined> {
  const client = new SecretsManagerClient({ region });
  try {
    return (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } finally {
    client.destroy();
  }
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
  if (rest.length !== 1 || rest[0]!.startsWith('-'))
    throw new Error('usage: unsubscribe-link <email> [--topic <topic>]');
  return { email: rest[0]!, topic };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  Promise.resolve()
    .then(() => {
      const { email, topic } = parseUnsubscribeLinkArgs(process.argv.slice(2));
      return unsubscribeLink(email, { topic });
    })
    .catch((error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    });
}
