/** What every console page is given, and what it answers. */
import type { Context } from '../cli/context.js';
import type { Shell } from './layout.js';

export interface Services {
  ctx: Context;
  /** Who every action is audited as: the operator's OS account. */
  actor: string;
  /** The token every form posts back. */
  csrf: string;
  now(): number;
}

export interface Request {
  query: URLSearchParams;
  /** The POSTed form (empty for a GET). */
  form: URLSearchParams;
}

export type Reply =
  | { status?: number; page: Shell }
  | { redirect: string }
  | { contentType: string; disposition: string; stream(write: (chunk: string) => Promise<void>): Promise<void> };

export type Route = (request: Request, services: Services) => Promise<Reply>;

/** The target, as the CLI names it in its errors; a target that cannot be used says why instead. */
export function describeTarget(services: Services): string {
  try {
    return services.ctx.target.description;
  } catch (error) {
    return (error as Error).message;
  }
}
