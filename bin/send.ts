/** `npm run send -- <provider> <kind> <email>` (see lib/cli/send.ts). */
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { endQuietlyOnClosedPipe } = await import('../lib/cli/io.js');
endQuietlyOnClosedPipe();
const { sendCommand } = await import('../lib/cli/send.js');
process.exitCode = await sendCommand(process.argv.slice(2), process.env);
