/**
 * The sync variables, described for docs/configuration.md (tools/env-table.ts) from the facts they are
 * parsed with: the providers' names, default limits and retry horizon (core/sync/settings.ts), the
 * adapters' default URLs (sync/config.ts), and the key and secret variables (sync-secrets.ts).
 * test/unit/docs/env-table.test.ts checks that every variable sync/config.ts reads is here.
 */
import {
  DEFAULT_RETRY_HORIZON_SECONDS,
  SYNC_VARIABLES as SETTING_VARIABLES,
  SYNC_DEFAULT_LIMITS,
  SYNC_RULES,
} from '../../core/sync/settings.js';
import { SYNC_PROVIDER_NAMES } from '../../core/sync/target.js';
import type { VariableDoc } from '../environment.js';
import { SYNC_DEFAULT_URLS, SYNC_URL_VARIABLE } from '../sync/config.js';
import { SYNC_KEY_VARIABLE, syncSecretArnVariable } from './sync-secrets.js';

/** Set on AWS by the stack: each worker copy's share of a stack-wide figure (lib/sync-limits.ts). */
export const SYNC_LIMIT_WHERE = {
  rate: "both (CDK context `syncRates`, the whole stack's figure: each worker copy gets its share)",
  concurrency: "both (CDK context `syncConcurrency`, the whole stack's figure: each worker copy gets its share)",
} as const;

/** Variable → its description and the "where" cell (the table's own wording, with a context key). */
export function syncVariableDocs(): Array<{ name: string; doc: VariableDoc; where?: string }> {
  const rows: Array<{ name: string; doc: VariableDoc; where?: string }> = [
    {
      name: SETTING_VARIABLES.providers,
      where: 'both (CDK context `syncProviders`)',
      doc: {
        applies: 'both',
        default: 'none: nothing is synced',
        expected: SYNC_PROVIDER_NAMES.join(', '),
        describe:
          "The providers every suppression change is pushed to, comma-separated (docs/sync.md); `npm start` refuses one whose key or required setting is missing. The CLI's `sync` commands read it too, else the running `npm start`'s",
      },
    },
    {
      name: SETTING_VARIABLES.retryHorizonSeconds,
      where: 'both (CDK context `syncRetrySeconds`, set on the sync worker)',
      doc: {
        applies: 'both',
        default: `\`${DEFAULT_RETRY_HORIZON_SECONDS}\``,
        expected: SYNC_RULES.retryHorizonSeconds.expected,
        describe:
          'How long a change is retried after its first counted failure (a 5xx, a timeout) at a provider before it is dead-lettered; waiting on a 429 never counts',
      },
    },
  ];
  for (const provider of SYNC_PROVIDER_NAMES) {
    const limits = SYNC_DEFAULT_LIMITS[provider];
    rows.push(
      {
        name: SETTING_VARIABLES.concurrency(provider),
        where: SYNC_LIMIT_WHERE.concurrency,
        doc: {
          applies: 'both',
          default: `\`${limits.concurrency}\``,
          expected: SYNC_RULES.concurrency.expected,
          describe: `Calls to ${provider} in flight at once, per sync worker`,
        },
      },
      {
        name: SETTING_VARIABLES.rate(provider),
        where: SYNC_LIMIT_WHERE.rate,
        doc: {
          applies: 'both',
          default: `\`${limits.rate}\``,
          expected: SYNC_RULES.rate.expected,
          describe: `Calls to ${provider} per second, per sync worker; a slow provider paces only its own messages (docs/sync.md)`,
        },
      },
    );
  }
  rows.push({
    name: 'SES_API_ENDPOINT',
    doc: {
      applies: 'local',
      default: "SES's own endpoint for AWS_REGION",
      expected: 'an http(s) URL',
      describe:
        'Where sync pushes SES suppressions (tests, LocalStack); with it set, the SES client takes `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` from the same environment',
    },
  });
  for (const provider of SYNC_PROVIDER_NAMES) {
    const variable = SYNC_KEY_VARIABLE[provider];
    if (!variable) continue; // SES: the worker's role
    rows.push({
      name: variable,
      doc: {
        applies: 'both',
        describe: `The ${provider} API key sync pushes with, required when SYNC_PROVIDERS names ${provider}; never logged. On AWS the worker reads the secret named by \`${syncSecretArnVariable(provider)}\` instead, and \`ratchet sync reconcile\` reads this variable everywhere`,
      },
    });
    if (provider in SYNC_URL_VARIABLE) {
      const key = provider as keyof typeof SYNC_URL_VARIABLE;
      rows.push({
        name: SYNC_URL_VARIABLE[key],
        doc: {
          applies: 'local',
          default: `\`${SYNC_DEFAULT_URLS[key]}\``,
          expected: 'an http(s) URL',
          describe: `The ${provider} API sync calls (an EU region, tests, a fake)`,
        },
      });
    }
    rows.push({
      name: syncSecretArnVariable(provider),
      doc: {
        applies: 'aws',
        expected: 'a Secrets Manager ARN',
        describe: `The secret \`<prefix>/sync/${provider}\` holding the ${provider} sync key; set by the stack on the sync worker`,
      },
    });
  }
  rows.push(
    {
      name: 'POSTMARK_STREAMS',
      where: 'both (CDK context `postmarkStreams`)',
      doc: {
        applies: 'both',
        default: '`outbound`',
        expected: 'comma-separated message stream IDs',
        describe: 'The Postmark streams a global suppression is pushed to (docs/sync-providers.md)',
      },
    },
    {
      name: 'MAILGUN_DOMAINS',
      where: 'both (CDK context `mailgunDomains`)',
      doc: {
        applies: 'both',
        expected: 'comma-separated sending domains',
        describe: 'The Mailgun domains a suppression is pushed to; required when SYNC_PROVIDERS names mailgun',
      },
    },
  );
  return rows;
}
