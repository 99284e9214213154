/**
 * `npm run cost`: the per-million cost of the event mix, per front door, from the synthesized
 * template, item sizes and durations measured on the local stack, and the dated price table.
 * Prints a table per door and writes it into BENCHMARKS.md (between the cost markers, which
 * `npm run bench` keeps). `npm run -s cost -- --json` prints only the JSON, for scripts.
 */
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { costFor, DELIVERED_WITH_RECORD, type DoorCost } from './model.js';
import { measure } from './measure.js';
import { PRICE_DATE, PRICE_REGION, PRICES } from './prices.js';
import { renderCost, writeCostSection } from './report.js';
import { synthesizeFacts } from './template.js';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const TARGETS = { functionUrl: 2.0, apiGateway: 3.0 } as const;

const USAGE = `Usage: npm run cost [-- --json]

Synthesizes the template, measures item sizes and durations on a throwaway local stack, prints the
per-million cost per front door and writes it into BENCHMARKS.md (between the cost markers).
  --json      print only the JSON (no table, BENCHMARKS.md untouched), for scripts: npm run -s cost -- --json
  -h, --help  print this and exit`;

async function main(): Promise<void> {
  const json = process.argv.includes('--json');
  const say = (line: string) => {
    if (!json) console.error(line);
  };
  say('synthesizing the template (default front door)…');
  const apiFacts = synthesizeFacts();
  say('synthesizing the template with -c front=function-url…');
  const urlFacts = synthesizeFacts({ front: 'function-url' });
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
    notes.push(`The template still declares inbox index(es) ${apiFacts.inboxIndexes.join(', ')}; the runtime no longer writes their key attributes, so they cost no writes (sparse index).`);
    urlNotes.push(notes.at(-1)!);
  }
  say(`measuring item sizes, durations and log bytes on the local stack (consumer batches of ${apiFacts.consumerBatchSize})…`);
  const load = loadavg()[0]!;
  const measured = await measure({ consumerBatch: apiFacts.consumerBatchSize });
  const loadNote = `Load average (1 min) when measuring: ${load.toFixed(2)} → ${loadavg()[0]!.toFixed(2)} on ${(await import('node:os')).cpus().length} cores.`;
  notes.push(loadNote);
  urlNotes.push(loadNote);

  const apiGateway = costFor('apiGateway', apiFacts, measured, notes);
  const functionUrl = costFor('functionUrl', urlFacts.functionUrl ? urlFacts : apiFacts, measured, urlNotes);
  if (json) {
    process.stdout.write(`${JSON.stringify({ apiGateway: strip(apiGateway), functionUrl: strip(functionUrl) })}\n`);
    return;
  }
  const markdown = renderCost({ apiGateway, functionUrl }, TARGETS, measured, apiFacts, PRICES);
  console.log(markdown);
  const file = resolve(import.meta.dirname, '..', 'BENCHMARKS.md');
  writeCostSection(file, markdown);
  say(`wrote the cost section into ${file}`);
}

function strip(door: DoorCost) {
  return { totalPerMillion: door.totalPerMillion, items: door.items };
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
