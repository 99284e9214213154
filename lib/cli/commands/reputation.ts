/**
 * `ratchet reputation [--sender s] [--window 24h|7d] [--json]`: every sender's volume, rates and state
 * over the window, one row per sender and provider, and the thresholds they are judged against. The
 * 24-hour state is what the evaluator stores (with its hysteresis); the 7-day one is the rates' own.
 */
import { Command, Option } from 'commander';
import { DynamoReputationReader, type SenderStatus } from '../../../lambdas/adapters/dynamodb-reputation.js';
import {
  formatRate,
  isSender,
  REPUTATION_WINDOWS,
  type ReputationThresholds,
  type ReputationWindow,
  thresholdsFromSettings,
} from '../../../lambdas/core/reputation/index.js';
import { type Context, InputError } from '../context.js';
import type { Run } from '../program.js';

export function reputationCommand(ctx: Context, run: Run): Command {
  return new Command('reputation')
    .description('bounce and complaint rates per sender, their state (ok, warn, breach) and the thresholds')
    .option('--sender <sender>', 'only this sender (a domain, or a scope such as ses:configuration-set/<name>)')
    .addOption(new Option('--window <window>', 'the rolling window').choices([...REPUTATION_WINDOWS]).default('24h'))
    .option('--json', 'one JSON document: the window, the thresholds and a row per sender')
    .action(
      run(async (options: { sender?: string; window: ReputationWindow; json?: boolean }) => {
        const sender = canonicalSender(options.sender);
        if (sender !== undefined && !isSender(sender))
          throw new InputError(`${JSON.stringify(options.sender)} is not a sender (a domain or a provider scope)`);
        const thresholds = thresholdsFromSettings(ctx.env);
        const reader = new DynamoReputationReader(ctx.doc, ctx.target.reputationTable, thresholds);
        const senders = await reader.listSenders(options.window, { nowMs: ctx.now(), sender });
        if (options.json) {
          ctx.io.out(JSON.stringify({ window: options.window, thresholds, senders }, null, 2));
          return 0;
        }
        for (const line of table(senders, options.window, thresholds)) ctx.io.out(line);
        return 0;
      }),
    );
}

function table(senders: readonly SenderStatus[], window: ReputationWindow, t: ReputationThresholds): string[] {
  const head = ['SENDER', 'PROVIDER', 'STATE', 'ATTEMPTS', 'HARD BOUNCES', 'COMPLAINTS'];
  const rows = senders.map((s) => [
    s.sender,
    s.provider,
    s.state,
    String(s.attempts),
    `${formatRate(s.bounceRate)} (${s.hardBounced})`,
    `${formatRate(s.complaintRate)} (${s.complained})`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const pct = (x: number) => `${Number((x * 100).toPrecision(6))} %`;
  return [
    ...(rows.length === 0 ? [`no senders counted in the last ${window}`] : [line(head), ...rows.map(line)]),
    '',
    `window ${window}; warn at ${pct(t.warn.bounce)} hard bounces or ${pct(t.warn.complaint)} complaints, breach at ${pct(t.breach.bounce)} or ${pct(t.breach.complaint)}; ok below ${t.minimumVolume} attempts`,
    'Complaint rates undercount Gmail (no complaints reach SES or Resend): see Postmaster Tools.',
  ];
}

/** Domains are stored lower-cased; a provider scope (`ses:configuration-set/Name`) keeps its case. */
export function canonicalSender(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed !== undefined && !trimmed.includes(':') ? trimmed.toLowerCase() : trimmed;
}
