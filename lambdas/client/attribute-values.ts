/**
 * DynamoDB attribute values → plain JSON, for the types the suppression table holds. Written here
 * (not @aws-sdk/util-dynamodb) so the client package depends on @aws-sdk/client-dynamodb alone.
 */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';

export function fromAttributeValue(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.M !== undefined) return fromItem(value.M);
  if (value.L !== undefined) return value.L.map(fromAttributeValue);
  if (value.SS !== undefined) return [...value.SS];
  if (value.NS !== undefined) return value.NS.map(Number);
  if (value.B !== undefined) return value.B;
  if (value.BS !== undefined) return [...value.BS];
  return undefined;
}

export function fromItem(item: Record<string, AttributeValue>): Record<string, unknown> {
  // Object.fromEntries: an attribute (or map key, such as an event id) named `__proto__` stays a plain key.
  return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, fromAttributeValue(v)]));
}
