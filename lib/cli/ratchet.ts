/**
 * `npm run ratchet -- <command>`: the operator CLI.
 *
 *   suppressions get <email>                        print the record as JSON
 *   suppressions list [--status suppressed|active]  one JSON record per line
 *   suppressions add <email> --reason <text>        manual suppression (audited)
 *   suppressions reactivate <email> --reason <text> the only way out of suppression (audited)
 *   inbox get <provider> <eventId>                  the stored row, raw payload decompressed
 *   inbox replay <provider> <eventId>               re-send a stored event to the queue
 *
 * `--actor` defaults to $USER. Manual actions are the audit trail: actor, reason and time are stored.
 */
import { parseArgs } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, createSqsClient } from '../../lambdas/adapters/aws-clients.js';
import { DynamoInbox, inboxKey } from '../../lambdas/adapters/dynamodb-inbox.js';
import { DynamoSuppressionStore } from '../../lambdas/adapters/dynamodb-suppressions.js';
import { SqsEventQueue } from '../../lambdas/adapters/sqs-queue.js';
import { policyFromSettings } from '../../lambdas/core/suppression/index.js';
import { normalizeRecipient } from '../../lambdas/core/event.js';
import { DEFAULT_INBOX_TTL_DAYS } from '../definitions.js';
import { resolveTarget } from './target.js';

export const RATCHET_USAGE = `usage: npm run ratchet -- <command>
  suppressions get <email>
  suppressions list [--status suppressed|active]
  suppressions add <email> --reason <text> [--actor <name>]
  suppressions reactivate <email> --reason <text> [--actor <name>]
  inbox get <provider> <eventId>
  inbox replay <provider> <eventId>`;

type Out = { log: (line: string) => void; error: (line: string) => void };

export async function ratchetCommand(
  argv: string[],
  env: Record<string, string | undefined>,
  out: Out = { log: (l) => console.log(l), error: (l) => console.error(l) },
): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { reason: { type: 'string' }, actor: { type: 'string' }, status: { type: 'string' } },
  });
  const [noun, verb, ...rest] = positionals;
  const target = resolveTarget(env);
  const doc = createDocumentClient({ region: target.region, dynamoEndpoint: target.dynamoEndpoint });
  try {
    const suppressions = new DynamoSuppressionStore(doc, target.suppressionTable, policyFromSettings(env));
    const inbox = new DynamoInbox(doc, target.inboxTable, { ttlSeconds: DEFAULT_INBOX_TTL_DAYS * 86_400 });
    const actor = values.actor ?? env.USER ?? 'unknown';

    if (noun === 'suppressions' && verb === 'get' && rest[0]) {
      const record = await suppressions.get(normalizeRecipient(rest[0]));
      if (!record) {
        out.error(`no suppression record for ${rest[0]} (${target.description}): it may be sent to`);
        return 1;
      }
      out.log(JSON.stringify(record, null, 2));
      return 0;
    }
    if (noun === 'suppressions' && verb === 'list') {
      let startKey: Record<string, unknown> | undefined;
      do {
        const page = await doc.send(new ScanCommand({ TableName: target.suppressionTable, ExclusiveStartKey: startKey }));
        for (const item of page.Items ?? []) {
          if (!values.status || item.status === values.status) out.log(JSON.stringify(item));
        }
        startKey = page.LastEvaluatedKey;
      } while (startKey);
      return 0;
    }
    if (noun === 'suppressions' && (verb === 'add' || verb === 'reactivate') && rest[0]) {
      if (!values.reason) {
        out.error('--reason is required: manual actions are audited');
        return 2;
      }
      const email = normalizeRecipient(rest[0]);
      const action = { actor, reason: values.reason, at: Date.now() };
      const result =
        verb === 'add' ? await suppressions.suppress(email, action) : await suppressions.reactivate(email, action);
      out.log(JSON.stringify({ effect: result.effect, record: result.record }, null, 2));
      return 0;
    }
    if (noun === 'inbox' && (verb === 'get' || verb === 'replay') && rest[0] && rest[1]) {
      const row = await inbox.get(inboxKey(rest[0], rest[1]));
      if (!row) {
        out.error(`no inbox row ${inboxKey(rest[0], rest[1])} (${target.description})`);
        return 1;
      }
      if (verb === 'get') {
        out.log(JSON.stringify(row, null, 2));
        return 0;
      }
      if (!target.queueUrl) {
        out.error('QUEUE_URL is not set (take it from the stack outputs)');
        return 2;
      }
      const sqs = createSqsClient({ region: target.region, sqsEndpoint: target.sqsEndpoint });
      await new SqsEventQueue(sqs, () => target.queueUrl!).send(row.events.map((event) => ({ pk: row.pk, event })));
      sqs.destroy();
      out.log(`re-sent ${row.pk}`);
      return 0;
    }
    out.error(RATCHET_USAGE);
    return 2;
  } finally {
    doc.destroy();
  }
}
