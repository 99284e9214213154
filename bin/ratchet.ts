/** `npm run ratchet -- <command>` (see lib/cli/ratchet.ts). */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { endQuietlyOnClosedPipe } = await import('../lib/cli/io.js');
endQuietlyOnClosedPipe();
const { ratchetCommand } = await import('../lib/cli/ratchet.js');
process.exitCode = await ratchetCommand(process.argv.slice(2), process.env);
