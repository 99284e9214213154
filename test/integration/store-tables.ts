/**
 * For the suppression store's own tests: one dynalite for the file, a fresh pair of tables for each
 * test, and the names of the commands the store's client sent (`sent`, emptied before each test and
 * whenever a test empties it: `sent.length = 0`).
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { createDocumentClient } from '../../lambdas/adapters/aws-clients.js';
import { type Emulator, startDynamo } from '../../lib/local/emulators.js';
import { createTables } from './harness.js';

export interface StoreTables {
  /** Every command the client sent since it was last emptied, by name (PutItemCommand, GetItemCommand ...). */
  readonly sent: string[];
  /** The client the store under test should use. */
  doc(): DynamoDBDocumentClient;
  /** This test's suppression table. */
  table(): string;
}

export function suppressionTablesOnDynalite(): StoreTables {
  let dynamo: Emulator;
  let doc: DynamoDBDocumentClient;
  let count = 0;
  const sent: string[] = [];
  beforeAll(async () => {
    dynamo = await startDynamo();
    doc = createDocumentClient({ region: 'us-east-1', dynamoEndpoint: dynamo.endpoint });
    doc.middlewareStack.add(
      (next, context) => (args) => {
        sent.push(context.commandName!);
        return next(args);
      },
      { step: 'initialize', name: 'countCommands' },
    );
  });
  afterAll(async () => {
    doc?.destroy();
    await dynamo?.stop();
  });
  beforeEach(async () => {
    count++;
    await createTables(dynamo.endpoint, { inbox: `inbox-${count}`, suppression: `suppressions-${count}` });
    sent.length = 0;
  });
  return { sent, doc: () => doc, table: () => `suppressions-${count}` };
}
