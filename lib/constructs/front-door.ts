/**
 * What the rest of the stack needs from a front door (HTTP API or Function URL): its base URL, and
 * what must exist before SNS is told to POST to it.
 */
import type { IDependable } from 'constructs';
import type { FrontDoorKind } from './ratchet-props.js';

export interface FrontDoor {
  readonly kind: FrontDoorKind;
  /** `https://host`, no trailing slash: links are `${baseUrl}/unsubscribe/<token>`. */
  readonly baseUrl: string;
  /** Deployed and invokable once these exist. */
  readonly ready: readonly IDependable[];
}

/** The provider's webhook URL on a front door. */
export const webhookUrl = (front: FrontDoor, provider: string): string => `${front.baseUrl}/webhooks/${provider}`;

/** The routes every front door serves (all to the edge Lambda). */
export const ROUTES = {
  webhooks: 'POST /webhooks/{provider}',
  ses: 'POST /webhooks/ses',
  unsubscribeGet: 'GET /unsubscribe/{token}',
  unsubscribePost: 'POST /unsubscribe/{token}',
} as const;
