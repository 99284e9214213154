/**
 * `npm run cost`: the per-million cost of the event mix, per front door, from the synthesized
 * template, item sizes and durations measured on the local stack, and the dated price table.
 * Prints a table per door and writes it into BENCHMARKS.md (between the cost markers, which
 * `npm run bench` keeps). `npm run -s cost -- --json` prints only the JSON, for scripts.
 * The default stack (SES through the feed queue) is priced beside `sesFeed=https`, its predecessor.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { recordDurations } from './durations.js';
import { measure } from './measure.js';
import { costFor, DELIVERED_WITH_RECORD, type DoorCost, SENDGRID_BATCH } from './model.js';
import { PRICE_DATE, PRICE_REGION, PRICES } from './prices.js';
import { renderCost, writeCostSection } from './report.js';
import { countingNote } from './reputation-note.js';
import { synthesizeFacts } from './template.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const TARGETS = { functionUrl: 2.0, apiGateway: 3.0 } as const;
/** Everything, SNS included, with the default feed, on either front door. */
const ALL_IN_GOAL = 2.25;

export const USAGE = `Usage: npm run cost [-- --json | --help]

Prices a million events of the standard mix (80 % SES, 20 % SendGrid in batches of 50) per front door
(API Gateway, Function URL), from the synthesized template, sizes and durations measured on the local
stack (dynalite + fauxqs, in process) and the dated list prices in cost/prices.ts. The default stack
(SES through the SQS feed) is priced beside sesFeed=https.

  (no option)  print the tables, rewrite the cost section of BENCHMARKS.md and the measured durations
               in cost/durations.json (which \`npm run capacity\` reads)
  --json       print {"apiGateway": {...}, "functionUrl": {...}} (totalPerMillion, allInPerMillion,
               items) for the default stack only; BENCHMARKS.md is not touched (cost/durations.json is)
  --help       print this and exit; nothing is synthesized, measured or written
`;

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    process.stdout.write(USAGE);
    return;
  }
  const json = process.argv.includes('--json');
  const say = (line: string) => {
    if (!json) console.error(line);
  };
  say('synthesizing the template (default front door)…');
  const apiFacts = synthesizeFacts();
  say('synthesizing the template with -c front=function-url…');
  const urlFacts = synthesizeFacts({ front: 'function-url' });
  say('synthesizing both again with -c sesFeed=https (the baseline)…');
  const apiHttpsFacts = synthesizeFacts({ sesFeed: 'https' });
  const urlHttpsFacts = synthesizeFacts({ front: 'function-url', sesFeed: 'https' });
  const notes: string[] = [
    `Prices: ${PRICE_REGION} list prices as of ${PRICE_DATE} (cost/prices.ts, sources there), no free tier.`,
    `Assumption: ${(DELIVERED_WITH_RECORD * 100).toFixed(0)} % of \`delivered\` events are for an address that already has a record (so the consumer writes); the rest write nothing.`,
    'Durations are handler wall times measured on the local stack (dynalite + fauxqs in one Node process) on this shared machine, billed rounded up to the next ms; AWS latencies differ.',
    'Per invocation, Lambda also ingests its own START/END/REPORT lines unless the function logs in JSON with a system log level above INFO (read from the template).',
  ];
  const urlNotes = [...notes];
  if (!urlFacts.functionUrl) {
    urlNotes.unshift(
      'The stack on this branch has no `front=function-url` context yet (its template with that context still has the HTTP API and no AWS::Lambda::Url): the Function URL door is computed from the same template minus API Gateway.',
    );
  }
  if (apiFacts.inboxIndexes.length > 0) {
    notes.push(
      `The template still declares inbox index(es) ${apiFacts.inboxIndexes.join(', ')}; the runtime no longer writes their key attributes, so they cost no writes (sparse index).`,
    );
    urlNotes.push(notes.at(-1)!);
  }
  say(
    `measuring item sizes, durations and log bytes on the local stack (consumer batches of ${apiFacts.consumerBatchSize})…`,
  );
  const load = loadavg()[0]!;
  const measured = await measure({ consumerBatch: apiFacts.consumerBatchSize, feedBatch: apiFacts.feedBatchSize });
  // `npm run capacity` reads these instead of measuring again (cost/durations.ts).
  recordDurations({
    recordedAt: new Date().toISOString(),
    loadAverage: load,
    edgeSendgridBatchMs: measured.edgeSendgridBatchMs,
    edgeSendgridBatch: SENDGRID_BATCH,
    feedBatchMs: measured.feedBatchMs,
    feedBatch: measured.feedBatch,
    consumerBatchMs: measured.consumerBatchMs,
    consumerBatch: measured.consumerBatch,
    reputationCounterBatchMs: measured.counting.counterBatchMs,
    reputationCounterBatch: measured.counting.counterBatch,
  });
  const loadNote = `Load average (1 min) when measuring: ${load.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${(await import('node:os')).cpus().length} cores.`;
  notes.push(loadNote);
  urlNotes.push(loadNote);
  if (apiFacts.sesFeed === 'sqs') {
    const feedNote = `SES feed: batches of ${apiFacts.feedBatchSize} assumed full (the event source waits up to its batching window for them); the feed's duration and log bytes are its own handler's (buildSesFeed + createSesFeedHandler) on SQS events of ${measured.feedBatch} signed SES envelopes, median per batch; it sends the batch's events to the event queue in one SendMessageBatch. The event sources' empty long polls on an idle queue (a few hundred thousand requests a month, whatever the volume) are not per-event costs and are left out, as for the consumer.`;
    notes.push(feedNote);
    urlNotes.push(feedNote);
  }

  const apiGateway = costFor('apiGateway', apiFacts, measured, notes);
  const functionUrl = costFor('functionUrl', urlFacts.functionUrl ? urlFacts : apiFacts, measured, urlNotes);
  if (apiFacts.sesFeed === 'sqs') {
    // SNS deliveries to SQS are $0 in AWS's price list (cost/prices.ts); say what the HTTP/S rate would cost, so the reader sees how much the feed's price rests on it.
    const extra = (door: DoorCost) => {
      const item = door.items.find((i) => i.service === 'SNS' && i.item.startsWith('SQS deliveries'));
      return (
        door.allInPerMillion + (item ? item.quantity * (PRICES.snsHttpDelivery.usd - PRICES.snsSqsDelivery.usd) : 0)
      );
    };
    const sensitivity = `SNS deliveries to SQS: $${(PRICES.snsSqsDelivery.usd * 1e6).toFixed(2)} per million in AWS's price list (usage type DeliveryAttempts-SQS, cited in cost/prices.ts). Charged at the HTTP/S rate ($${(PRICES.snsHttpDelivery.usd * 1e6).toFixed(2)} per million), the all-in totals would be $${extra(functionUrl).toFixed(4)} (Function URL) and $${extra(apiGateway).toFixed(4)} (API Gateway), against the goal of $${ALL_IN_GOAL.toFixed(2)}.`;
    notes.push(sensitivity);
    urlNotes.push(sensitivity);
  }
  for (const [door, list] of [
    [apiGateway, notes],
    [functionUrl, urlNotes],
  ] as const) {
    list.push(countingNote(door.reputationPerMillion, measured.counting));
  }
  if (json) {
    process.stdout.write(`${JSON.stringify({ apiGateway: strip(apiGateway), functionUrl: strip(functionUrl) })}\n`);
    return;
  }
  const baseline = {
    apiGateway: costFor('apiGateway', apiHttpsFacts, measured, []),
    functionUrl: costFor('functionUrl', urlHttpsFacts, measured, []),
  };
  const markdown = renderCost({ apiGateway, functionUrl }, TARGETS, measured, apiFacts, PRICES, {
    baseline,
    allInGoal: ALL_IN_GOAL,
  });
  console.log(markdown);
  const file = resolve(import.meta.dirname, '..', 'BENCHMARKS.md');
  writeCostSection(file, markdown);
  say(`wrote the cost section into ${file}`);
}

function strip(door: DoorCost) {
  return {
    totalPerMillion: door.totalPerMillion,
    allInPerMillion: door.allInPerMillion,
    sesFeed: door.sesFeed,
    items: door.items,
  };
}

// Help before anything runs: the model takes minutes and rewrites a tracked file.
if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}

main().then(
  () => setTimeout(() => process.exit(0), 500).unref(),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
