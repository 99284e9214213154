/**
 * The document client every adapter is handed, with the three commands that run once or more per event
 * (PutItem: the consumer's suppression write; BatchGetItem and UpdateItem: the sync worker's read and
 * commit) sent through a second, plain DynamoDBClient built with the SDK's `cacheMiddleware`.
 *
 * Why: a document command resolves its middleware stack on every call, twice over (lib-dynamodb's
 * command wraps the client's, then the client's is resolved again for it), and lib-dynamodb refuses
 * `cacheMiddleware` on its own client. The plain client resolves a command class's stack once. On the
 * two writes every synced change makes, that took about 14 % off the main thread's CPU a change
 * (docs/decisions.md); on Lambda, CPU is billed time.
 *
 * Same wire requests, same answers: the input is marshalled and the output unmarshalled with the
 * document client's own options, and errors are the SDK's own (a ConditionalCheckFailedException's
 * `Item` stays marshalled, as lib-dynamodb leaves it). Any other command, any call given options or a
 * callback, a call with the legacy parameters (`Expected`, `AttributeUpdates`), and every call once someone has added middleware to this client (a test's fault injection, a
 * user's logging), goes through lib-dynamodb unchanged, so the stack it was given is honoured.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  type DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  DynamoDBDocumentClient,
  PutCommand,
  type PutCommandOutput,
  type TranslateConfig,
  UpdateCommand,
  type UpdateCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';

type Item = Record<string, unknown>;
type Marshalled = Record<string, AttributeValue>;
type MarshallOptions = NonNullable<TranslateConfig['marshallOptions']>;
type UnmarshallOptions = NonNullable<TranslateConfig['unmarshallOptions']>;

/** Legacy parameters hold values lib-dynamodb marshals and this route does not: they go its way. */
const LEGACY_PARAMETERS = ['Expected', 'AttributeUpdates'];

export class CachedDocumentClient extends DynamoDBDocumentClient {
  /** Middleware was added to this client's stack: every call goes the ordinary way, which runs it. */
  private customized = false;
  private readonly marshallOptions: MarshallOptions;
  private readonly unmarshallOptions: UnmarshallOptions;

  /**
   * @param client the document client's own (no `cacheMiddleware`: lib-dynamodb refuses it)
   * @param cached a client on the same endpoint and credentials, built with `cacheMiddleware: true`
   */
  constructor(
    client: DynamoDBClient,
    readonly cached: DynamoDBClient,
    translate: TranslateConfig = {},
  ) {
    super(client, translate);
    // Copies, whole items in and out: lib-dynamodb sets convertTopLevelContainer and
    // convertWithoutMapWrapper on the objects it is given, on its first command, because it converts
    // attribute by attribute. Read through those, a whole item would come out wrapped in an extra { M }.
    this.marshallOptions = { ...translate.marshallOptions, convertTopLevelContainer: false };
    this.unmarshallOptions = { ...translate.unmarshallOptions, convertWithoutMapWrapper: false };
    // After super(): what the SDK itself puts on the stack while building the client does not count.
    const stack = this.middlewareStack;
    for (const method of ['add', 'addRelativeTo', 'use'] as const) {
      const original = stack[method].bind(stack) as (...args: unknown[]) => unknown;
      Object.assign(stack, {
        [method]: (...args: unknown[]) => {
          this.customized = true;
          return original(...args);
        },
      });
    }
  }

  // biome-ignore lint/suspicious/noExplicitAny: the overloads of Client.send, passed through as they are.
  override send(command: any, ...rest: any[]): any {
    if (rest.length === 0 && !this.customized && !LEGACY_PARAMETERS.some((p) => p in (command.input ?? {}))) {
      if (command instanceof PutCommand) return this.put(command);
      if (command instanceof UpdateCommand) return this.update(command);
      if (command instanceof BatchGetCommand) return this.batchGet(command);
    }
    // biome-ignore lint/suspicious/noExplicitAny: as above.
    return (super.send as any)(command, ...rest);
  }

  override destroy(): void {
    this.cached.destroy();
    super.destroy();
  }

  private async put(command: PutCommand): Promise<PutCommandOutput> {
    const { Item: item, ExpressionAttributeValues: values, ...rest } = command.input;
    const out = await this.cached.send(
      new PutItemCommand({ ...rest, Item: this.marshal(item as Item), ...this.values(values) }),
    );
    return this.withAttributes(out) as PutCommandOutput;
  }

  private async update(command: UpdateCommand): Promise<UpdateCommandOutput> {
    const { Key: key, ExpressionAttributeValues: values, ...rest } = command.input;
    const out = await this.cached.send(
      new UpdateItemCommand({ ...rest, Key: this.marshal(key as Item), ...this.values(values) }),
    );
    return this.withAttributes(out) as UpdateCommandOutput;
  }

  private async batchGet(command: BatchGetCommand): Promise<BatchGetCommandOutput> {
    const { RequestItems: requests = {}, ...rest } = command.input;
    const RequestItems = Object.fromEntries(
      Object.entries(requests).map(([table, request]) => [
        table,
        { ...request, Keys: (request.Keys ?? []).map((key) => this.marshal(key as Item)) },
      ]),
    );
    const out = await this.cached.send(new BatchGetItemCommand({ ...rest, RequestItems }));
    const { Responses: responses, UnprocessedKeys: unprocessed, ...meta } = out;
    return {
      ...meta,
      ...(responses
        ? {
            Responses: Object.fromEntries(
              Object.entries(responses).map(([table, items]) => [table, items.map((i) => this.unmarshal(i))]),
            ),
          }
        : {}),
      ...(unprocessed
        ? {
            UnprocessedKeys: Object.fromEntries(
              Object.entries(unprocessed).map(([table, request]) => [
                table,
                { ...request, Keys: (request.Keys ?? []).map((key) => this.unmarshal(key)) },
              ]),
            ),
          }
        : {}),
    } as BatchGetCommandOutput;
  }

  /** A write's answer with its `Attributes` (ReturnValues) unmarshalled, when there are any. */
  private withAttributes<T extends { Attributes?: Marshalled }>(out: T): Omit<T, 'Attributes'> & { Attributes?: Item } {
    const { Attributes: attributes, ...meta } = out;
    return { ...meta, ...(attributes ? { Attributes: this.unmarshal(attributes) } : {}) };
  }

  private values(values: Item | undefined): { ExpressionAttributeValues?: Marshalled } {
    return values === undefined ? {} : { ExpressionAttributeValues: this.marshal(values) };
  }

  private marshal(item: Item): Marshalled {
    return marshall(item, this.marshallOptions) as Marshalled;
  }

  private unmarshal(item: Marshalled): Item {
    return unmarshall(item, this.unmarshallOptions);
  }
}
