/**
 * Keeps CloudFormation logical ids stable when resources move into seam constructs.
 *
 * Tables, queues, secrets, the SES topic and the API have fixed physical names (or URLs that providers
 * were given), so a new logical id would make CloudFormation create a second resource with the same
 * name before deleting the first, and the update would fail. A construct marked transparent is left out
 * of its descendants' logical ids, exactly like CDK's own `Default` id, so `Storage/InboxTable` keeps
 * the id `InboxTable` had before the split. The shipped stack turns this on; a user's own stack that
 * embeds the `Ratchet` construct gets CDK's ordinary ids.
 */
import { createHash } from 'node:crypto';
import { Stack, type CfnElement } from 'aws-cdk-lib';
import type { IConstruct } from 'constructs';

const TRANSPARENT = Symbol.for('ratchet.transparent-id');

/** Leave this construct's id out of its descendants' logical ids (in a StableIdStack). */
export function markTransparent(construct: IConstruct): void {
  (construct as unknown as Record<symbol, boolean>)[TRANSPARENT] = true;
}

const isTransparent = (construct: IConstruct): boolean =>
  (construct as unknown as Record<symbol, boolean | undefined>)[TRANSPARENT] === true;

/** The path components below the stack that count towards logical ids. */
export function stablePath(construct: IConstruct): string[] {
  const stack = Stack.of(construct);
  const scopes = construct.node.scopes;
  return scopes.slice(scopes.indexOf(stack) + 1).filter((c) => !isTransparent(c)).map((c) => c.node.id);
}

/** CDK's own algorithm (core/lib/private/uniqueid), which aws-cdk-lib does not export. */
export function makeUniqueId(path: string[]): string {
  const components = path.filter((x) => x !== 'Default');
  if (components.length === 0) throw new Error('Unable to calculate a unique id for an empty set of components');
  const alnum = (s: string) => s.replace(/[^A-Za-z0-9]/g, '');
  if (components.length === 1 && alnum(components[0]!).length <= 255) return alnum(components[0]!);
  const hash = createHash('md5').update(components.join('/')).digest('hex').slice(0, 8).toUpperCase();
  const human: string[] = [];
  for (const c of components) if (human.length === 0 || !human[human.length - 1]!.endsWith(c)) human.push(c);
  return human.filter((x) => x !== 'Resource').map(alnum).join('').slice(0, 240) + hash;
}

/** A stack whose logical ids skip transparent constructs. */
export class StableIdStack extends Stack {
  protected override allocateLogicalId(element: CfnElement): string {
    return makeUniqueId(stablePath(element));
  }
}
