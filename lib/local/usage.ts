/** `npm start -- --help`: what `npm start` does and the variables it reads (lambdas/adapters/environment.ts). */
import { RUNTIME_VARIABLE } from '../../lambdas/adapters/environment.js';
import { SYNC_VARIABLES } from '../../lambdas/core/sync/settings.js';

export function startUsage(): string {
  const v = RUNTIME_VARIABLE;
  return [
    'Usage: npm start [-- --help | --version]',
    '',
    'Runs the whole system on this machine: an embedded DynamoDB (dynalite) and SQS (fauxqs), the same edge and',
    'consumer handlers the Lambdas run, and the webhook routes on http://localhost:$PORT. Providers without',
    'credentials get generated demo credentials (announced at start). Stops cleanly on SIGTERM or SIGINT.',
    '',
    'Variables (every one is checked before anything starts; a bad value exits 1 with one line naming it):',
    `  ${v.port}                 port to listen on (default 3000; 0 picks a free one)`,
    '  RATCHET_DATA_DIR     where state lives (default .data)',
    `  ${v.logLevel}            TRACE, DEBUG, INFO (default), WARN, ERROR, CRITICAL or SILENT`,
    `  ${v.inboxTtlDays}       inbox row lifetime in days; must outlive every signature window`,
    `  ${v.dynamoEndpoint}, ${v.sqsEndpoint}   use these instead of the embedded emulators`,
    `  ${v.inboxTable}, ${v.suppressionTable}, ${v.queueName}   resource names`,
    `  ${SYNC_VARIABLES.providers}       push every suppression change to these providers (docs/sync.md)`,
    '  provider credentials and settings, sync keys: see docs/configuration.md (e.g. SENDGRID_PUBLIC_KEYS,',
    '  UNSUBSCRIBE_SECRETS, SENDGRID_API_KEY)',
    '',
    'Then: npx ratchet --help (the operator CLI), npx ratchet console (the same in a browser),',
    'npx ratchet-send --help (signed sample events).',
  ].join('\n');
}
