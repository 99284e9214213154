/**
 * `npx ratchet-send <provider> <kind> <email>`: signs a sample event the way that provider would and
 * posts it to the local stack, found as `ratchet` finds it: PORT when set, else the running
 * `npm start`'s `.data/local.json`. Uses the demo credentials `npm start` generated, or, for
 * shared-secret providers, the first secret in the provider's variable when it is set. `ses … --via queue` puts the signed SNS envelope on the SES feed
 * queue instead, as SNS would (send-queue.ts). Prints the answer, then the event id and inbox key of each event it posted (`ratchet inbox get` takes them).
 */
import { resolve } from 'node:path';
import { Argument, Command, Option } from 'commander';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { findProvider } from '../../lambdas/core/providers/index.js';
import { DEMO_SIGNERS, findDemoSigner, resolveDemoTopic, TOPIC_KIND_NAMES } from '../demo/index.js';
import { applyDemoDefaults, ensureDemoCredentials } from '../local/demo-credentials.js';
import { Context, type Env } from './context.js';
import { type Io, processIo } from './io.js';
import { execute, runner } from './program.js';
import { postedEvents } from './send-events.js';
import { sendToFeed } from './send-queue.js';
import { localStackUrl } from './target.js';
import { packageVersion } from './version.js';

const KIND_ALIASES: Record<string, ActionableKind> = {
  bounce: 'hard_bounce',
  hard_bounce: 'hard_bounce',
  'hard-bounce': 'hard_bounce',
  soft_bounce: 'soft_bounce',
  'soft-bounce': 'soft_bounce',
  complaint: 'complaint',
  unsubscribe: 'unsubscribe',
  delivered: 'delivered',
  delivery: 'delivered',
};

/** Providers whose verifier and sender share one secret, so a configured variable can sign too. */
const SHARED_SECRET_PROVIDERS = new Set(['mailgun', 'postmark', 'standard', 'generic']);

export async function sendCommand(argv: string[], env: Env, io: Io = processIo): Promise<number> {
  const ctx = new Context(env, io);
  const state = { code: 0 };
  const run = runner(ctx, state);
  const program = new Command('send')
    .description(
      'Sign a sample event the way the provider would and POST it to the local stack (PORT, else .data/local.json).',
    )
    .version(packageVersion(), '-V, --version', 'print the version')
    .addArgument(new Argument('<provider>', 'who signs it').choices(DEMO_SIGNERS.map((s) => s.provider)))
    .addArgument(
      new Argument('<kind>', 'bounce is a hard bounce').choices([
        ...Object.keys(KIND_ALIASES),
        ...Object.keys(TOPIC_KIND_NAMES),
      ]),
    )
    .argument('<email>', 'the recipient')
    .option('--group <id>', 'SendGrid: the suppression group (asm_group_id) of a group-unsubscribe/-resubscribe')
    .option(
      '--topic <name>',
      'the topic (list, stream) an unsubscribe/subscribe is scoped to, where the provider has one',
    )
    .addOption(
      new Option(
        '--via <door>',
        'ses: POST it over HTTP, or put it on the SES feed queue as SNS would (SES_QUEUE_NAME + SQS_ENDPOINT, or .data/local.json)',
      )
        .choices(['http', 'queue'])
        .default('http'),
    )
    .option('--json', 'one JSON line: the URL, the status, the answer and the events posted')
    .action(
      run(
        async (
          providerName: string,
          kindName: string,
          email: string,
          flags: { group?: string; topic?: string; json?: boolean; via: 'http' | 'queue' },
        ) => {
          if (flags.via === 'queue' && providerName !== 'ses') {
            io.err(`error: --via queue is for ses only (the SES feed); ${providerName} is sent over HTTP`);
            return 2;
          }
          const signer = findDemoSigner(providerName)!;
          const recipient = ctx.address(email);
          let scoped: ReturnType<typeof resolveDemoTopic>;
          try {
            scoped = resolveDemoTopic(signer, kindName, flags);
          } catch (error) {
            io.err(`error: ${(error as Error).message}`);
            return 2;
          }
          const kind = scoped.kind ?? KIND_ALIASES[kindName];
          if (kind === undefined) {
            io.err(`error: ${kindName} is not a kind ${signer.provider} sends`);
            return 2;
          }
          const dataDir = resolve(env.RATCHET_DATA_DIR ?? '.data');
          const demoSet = ensureDemoCredentials(dataDir);
          const demo = demoSet[signer.provider]!;
          const definition = findProvider(signer.provider)!;
          const configured = env[definition.credentialsVariable]?.split(',')[0]?.trim();
          const credentials =
            configured && SHARED_SECRET_PROVIDERS.has(signer.provider)
              ? { ...demo, credential: configured, signingSecret: configured }
              : demo;
          const request = signer.sign(kind, recipient, credentials, Date.now(), scoped.options);
          const settings = applyDemoDefaults(env, dataDir, demoSet).settings;
          // Read back by the provider module the edge runs, so the keys printed are the edge's (either door).
          const events = await postedEvents(definition, request, credentials, settings).catch(() => []);
          if (flags.via === 'queue') return sendToFeed(env, request.body, events[0]?.inboxKey, io);
          const stack = localStackUrl(env);
          const url = `${stack.url}/webhooks/${signer.provider}`;
          let response: Response;
          try {
            response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
          } catch (error) {
            io.err(
              `error: could not reach ${url} (from ${stack.source}): start the local stack with \`npm start\`, or set PORT (${rootMessage(error)})`,
            );
            return 1;
          }
          const text = await response.text();
          if (flags.json) {
            io.out(JSON.stringify({ url, status: response.status, response: parseJson(text), events }));
          } else {
            io.out(`POST ${url} → ${response.status} ${text}`);
            for (const event of events) io.out(`event ${event.eventId} (${event.kind}): inbox key ${event.inboxKey}`);
          }
          return response.ok ? 0 : 1;
        },
      ),
    );
  return execute(program, argv, ctx, state);
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function rootMessage(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  return cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : String(cause);
}
