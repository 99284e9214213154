/** `npm run ratchet -- <command>` (see lib/cli/ratchet.ts). */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { ratchetCommand } = await import('../lib/cli/ratchet.js');
try {
  process.exitCode = await ratchetCommand(process.argv.slice(2), process.env);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exitCode = 1;
}
