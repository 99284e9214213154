/**
 * Shared by the infra tests: synthesize the real app (real esbuild bundling) once per file, and read
 * IAM statements back per function in a form that is easy to compare exactly.
 */

import { rmSync } from 'node:fs';
import { App, CfnElement, type IResolvable, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';
import type { HandlerFunction } from '../../lib/constructs/handler-function.js';
import { RatchetStack, type RatchetStackProps } from '../../lib/stack.js';

export interface Synthesized {
  app: App;
  stack: RatchetStack;
  template: Template;
  assembly: CloudAssembly;
  /** Removes the temporary cloud assembly (bundles included). */
  cleanup(): void;
}

/** Context that skips esbuild bundling: for tests that read the template only. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] } as const;

export function synthesize(context: Record<string, unknown> = {}, props: RatchetStackProps = {}): Synthesized {
  const app = new App({ context });
  const stack = new RatchetStack(app, 'RatchetTest', props);
  const assembly = app.synth();
  const template = Template.fromJSON(assembly.getStackArtifact(stack.artifactId).template);
  return {
    app,
    stack,
    template,
    assembly,
    cleanup: () => rmSync(assembly.directory, { recursive: true, force: true }),
  };
}

export function logicalId(construct: IConstruct): string {
  const stack = Stack.of(construct);
  const child = construct.node.defaultChild ?? construct;
  return stack.getLogicalId(child as never);
}

export function functionLogicalId(handler: HandlerFunction): string {
  return logicalId(handler.function.node.defaultChild as CfnFunction);
}

/** The same synth without bundling (a few seconds instead of ten). */
export const synthesizeTemplate = (context: Record<string, unknown> = {}, props: RatchetStackProps = {}): Synthesized =>
  synthesize({ ...NO_BUNDLING, ...context }, props);

type Resources = Record<
  string,
  {
    Type: string;
    Properties: Record<string, any>;
    DependsOn?: string[];
    DeletionPolicy?: string;
    UpdateReplacePolicy?: string;
  }
>;

/** The template's resources, by logical id. */
export const resources = (s: Synthesized): Resources => s.template.toJSON().Resources as Resources;

/** A token or token-bearing string as it appears in the template. */
export function resolved(stack: Stack, value: string | IResolvable): unknown {
  return stack.resolve(value);
}

type Json = Record<string, unknown>;

const asArray = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

export interface Statement {
  Effect: string;
  Action: string[];
  Resource: unknown[];
  Condition?: unknown;
  Principal?: unknown;
}

/** Every statement of every AWS::IAM::Policy attached to the handler's role, plus the role's own. */
export function roleStatements(template: Template, handler: HandlerFunction): Statement[] {
  const roleId = logicalId(handler.role);
  const statements: Statement[] = [];
  for (const policy of Object.values(template.findResources('AWS::IAM::Policy')) as Json[]) {
    const props = policy.Properties as Json;
    const roles = props.Roles as unknown[];
    if (!roles.some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleId }))) continue;
    for (const s of (props.PolicyDocument as Json).Statement as Json[]) {
      statements.push({
        Effect: s.Effect as string,
        Action: asArray(s.Action as string | string[]),
        Resource: asArray(s.Resource as unknown),
        ...(s.Condition ? { Condition: s.Condition } : {}),
      });
    }
  }
  return statements;
}

/** action -> sorted JSON of the resources it is allowed on, across all statements. */
export function grants(statements: Statement[]): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const s of statements) {
    for (const action of s.Action) {
      const set = (out[action] ??= new Set());
      for (const r of s.Resource) set.add(JSON.stringify(r));
    }
  }
  return Object.fromEntries(
    Object.entries(out)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([action, set]) => [action, [...set].sort()]),
  );
}

export function expectedGrants(
  stack: Stack,
  entries: Array<[string[], Array<string | IResolvable>]>,
): Record<string, string[]> {
  const out: Record<string, Set<string>> = {};
  for (const [actions, resources] of entries) {
    for (const action of actions) {
      const set = (out[action] ??= new Set());
      for (const r of resources) set.add(JSON.stringify(stack.resolve(r)));
    }
  }
  return Object.fromEntries(
    Object.entries(out)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([action, set]) => [action, [...set].sort()]),
  );
}

/**
 * Renders Ref / Fn::GetAtt / Fn::Join into a readable string (`{Ref:Api1234}`, `{AWS::Region}`), so a
 * URL assembled from tokens can be compared as text.
 */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object') {
    const v = value as Json;
    if (typeof v.Ref === 'string') return v.Ref.startsWith('AWS::') ? `{${v.Ref}}` : `{Ref:${v.Ref}}`;
    if (Array.isArray(v['Fn::GetAtt'])) return `{GetAtt:${(v['Fn::GetAtt'] as string[]).join('.')}}`;
    if (Array.isArray(v['Fn::Join'])) {
      const [sep, parts] = v['Fn::Join'] as [string, unknown[]];
      return parts.map(render).join(sep);
    }
  }
  return JSON.stringify(value);
}

/**
 * The resources under `scope`, keyed by their construct path below `root` (the Ratchet construct), with
 * every logical id in them (Ref, Fn::GetAtt, DependsOn) replaced by `<path>` in the same way: a template
 * fragment that compares across logical-id schemes.
 */
export function resourcesByPath(s: Synthesized, root: IConstruct, scope: IConstruct): Record<string, unknown> {
  const byId = new Map<string, string>();
  const inScope = new Set<string>();
  const relative = (c: IConstruct) => c.node.path.slice(root.node.path.length + 1);
  for (const c of s.stack.node.findAll()) {
    if (!CfnElement.isCfnElement(c)) continue;
    const id = s.stack.getLogicalId(c);
    byId.set(id, relative(c));
    if (c.node.scopes.includes(scope)) inScope.add(id);
  }
  const replace = (value: unknown): unknown => {
    if (typeof value === 'string') return byId.has(value) ? `<${byId.get(value)}>` : value;
    if (Array.isArray(value)) return value.map(replace);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, replace(v)]));
    return value;
  };
  const all = resources(s);
  return Object.fromEntries(
    [...inScope]
      .filter((id) => all[id])
      .sort()
      .map((id) => [byId.get(id)!, replace(all[id])]),
  );
}
