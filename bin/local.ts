/** `npm start`: the whole system on this machine. See README "Quick start". */
// Help first, before anything is read or started: `npm start -- --help` must never start a server.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  const { startUsage } = await import('../lib/local/usage.js');
  console.log(startUsage());
  process.exit(0);
}
if (process.argv.includes('--version') || process.argv.includes('-V')) {
  const { packageVersion } = await import('../lib/cli/version.js');
  console.log(packageVersion());
  process.exit(0);
}
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

const { startLocalRuntime } = await import('../lib/local/runtime.js');
const { StartupError } = await import('../lib/local/startup-error.js');
const { PROVIDERS } = await import('../lambdas/core/providers/index.js');

const runtime = await startLocalRuntime().catch((error: unknown) => {
  // Something the operator can fix gets one line per problem and no trace; anything else is a bug.
  if (error instanceof StartupError) {
    for (const line of error.message.split('\n')) console.error(`npm start: ${line}`);
  } else {
    console.error('npm start: unexpected failure while starting', error);
  }
  process.exit(1);
});

// Before the ready line: whoever reads it (a supervisor, a test) may signal at once, and must get a clean stop.
/** A stop that hangs must not outlive what a supervisor waits for (systemd and most give 10 s). */
const STOP_DEADLINE_MS = 8_000;
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal} received, shutting down`);
    setTimeout(() => {
      console.error(`shutdown took longer than ${STOP_DEADLINE_MS / 1000} s; exiting anyway`);
      runtime.abandon();
      process.exit(1);
    }, STOP_DEADLINE_MS).unref();
    runtime.stop().then(
      () => {
        console.log('stopped');
        process.exit(0);
      },
      (error: unknown) => {
        console.error('shutdown failed', error);
        process.exit(1);
      },
    );
  });
}

for (const provider of runtime.usingDemo) {
  console.warn(
    `!! DEMO CREDENTIALS: '${provider}' is using generated demo credentials from ${runtime.dataDir}/demo-credentials.json.`,
  );
}
if (runtime.usingDemo.length > 0) {
  console.warn(
    '!! Set the provider variables (see docs/configuration.md) before pointing a real provider at this server.',
  );
}
if (runtime.unsubscribe.usingDemoKey) {
  console.warn(
    `!! DEMO UNSUBSCRIBE KEY: links are signed with a key generated in ${runtime.dataDir}/unsubscribe-demo-key; set UNSUBSCRIBE_SECRETS for real mail.`,
  );
}
for (const provider of PROVIDERS) console.log(`webhook: ${runtime.url}/webhooks/${provider.name}`);
console.log(
  `ses feed: ${runtime.queues.sesQueueUrl} (npx ratchet-send ses <kind> <email> --via queue); dead letters: ${runtime.queues.sesDeadLetterUrl}`,
);
console.log(
  `unsubscribe: ${runtime.unsubscribe.baseUrl}/unsubscribe/{token} (npx ratchet unsubscribe-link <email> [--topic t])`,
);
console.log(`suppression table: ${runtime.config.suppressionTable} (${runtime.config.dynamoEndpoint})`);
console.log('console: npx ratchet console (the operator console in your browser, on 127.0.0.1)');
console.log(`ready: Ratchet is listening on ${runtime.url}`);
