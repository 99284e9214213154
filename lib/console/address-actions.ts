/**
 * The address page's actions, as the CLI's `suppressions reactivate|add [--topic]`: the same store and
 * core, audited with the operator's OS account. Each takes three steps: a GET form, a confirmation page
 * (GET, changes nothing) whose button POSTs with the CSRF token, then a redirect to the record with a
 * notice (so a reload never repeats the action).
 */
import { isTopicName } from '../../lambdas/core/topics.js';
import { InputError } from '../cli/context.js';
import type { StoredRecord } from './address-sections.js';
import { type Html, html, query } from './html.js';
import { describeTarget, type Request, type Route, type Services } from './services.js';

/** The core clips longer reasons; the form refuses them instead, so what is audited is what was typed. */
export const REASON_MAX = 200;

const ACTIONS = {
  reactivate: { label: 'Reactivate', verb: 'reactivate', done: 'reactivated' },
  suppress: { label: 'Suppress by hand', verb: 'suppress (reason manual)', done: 'suppressed' },
  'topic-out': { label: 'Opt out of topic', verb: 'opt out of topic', done: 'topic-out' },
  'topic-in': { label: 'Opt in to topic', verb: 'opt back in to topic', done: 'topic-in' },
} as const;
type ActionName = keyof typeof ACTIONS;

export const DONE_NOTICES: Record<string, string> = {
  reactivated: 'Reactivated. The record below is the one now stored.',
  suppressed: 'Suppressed by hand. The record below is the one now stored.',
  'topic-out': 'Opted out of the topic. The record below is the one now stored.',
  'topic-in': 'Opted in to the topic. The record below is the one now stored.',
};

interface Wanted {
  action: ActionName;
  email: string;
  reason: string;
  topic?: string;
}

function read(params: URLSearchParams, services: Services, hasRecord?: boolean): Wanted {
  const action = params.get('action') ?? '';
  if (!Object.hasOwn(ACTIONS, action)) throw new InputError(`action: one of ${Object.keys(ACTIONS).join(', ')}`);
  const email = services.ctx.address(params.get('email') ?? '');
  const reason = params.get('reason')?.trim() ?? '';
  if (reason === '') throw new InputError('a reason is required: manual actions are audited');
  if (reason.length > REASON_MAX) throw new InputError(`the reason is longer than ${REASON_MAX} characters`);
  const wanted: Wanted = { action: action as ActionName, email, reason };
  if (action.startsWith('topic-')) {
    const topic = params.get('topic')?.trim() ?? '';
    if (!isTopicName(topic)) throw new InputError(`${JSON.stringify(topic)} is not a topic name`);
    wanted.topic = topic;
  }
  if (action === 'reactivate' && hasRecord === false)
    throw new InputError('no record for this address: nothing to reactivate');
  return wanted;
}

export function actionForms(email: string, record: StoredRecord | undefined, services: Services): Html {
  const reason = (id: string) =>
    html`<div><label for="${id}">Reason (required, audited as ${services.actor})</label><input id="${id}" name="reason" type="text" maxlength="${REASON_MAX}" size="40" required></div>`;
  const form = (action: ActionName, fields: Html) =>
    html`<form method="get" action="/address/confirm"><fieldset><legend>${ACTIONS[action].label}</legend>
<input type="hidden" name="action" value="${action}"><input type="hidden" name="email" value="${email}">
<div class="row">${fields}<div><button type="submit">${ACTIONS[action].label}…</button></div></div></fieldset></form>`;
  return html`<h2>Actions</h2>
${record?.status === 'suppressed' ? form('reactivate', reason('reactivate-reason')) : ''}
${record?.status !== 'suppressed' ? form('suppress', reason('suppress-reason')) : ''}
${form(
  'topic-out',
  html`<div><label for="topic-out-topic">Topic</label><input id="topic-out-topic" name="topic" type="text" required></div>${reason('topic-out-reason')}`,
)}
${form(
  'topic-in',
  html`<div><label for="topic-in-topic">Topic</label><input id="topic-in-topic" name="topic" type="text" required></div>${reason('topic-in-reason')}`,
)}`;
}

export const confirmAddressAction: Route = async (request: Request, services: Services) => {
  const record = await services.ctx.suppressions().get(services.ctx.address(request.query.get('email') ?? ''));
  const wanted = read(request.query, services, record !== undefined);
  const { label, verb } = ACTIONS[wanted.action];
  return {
    page: {
      title: `Confirm: ${label.toLowerCase()}`,
      section: 'address',
      target: describeTarget(services),
      body: html`<p>About to <strong>${verb}${wanted.topic ? ` ${wanted.topic}` : ''}</strong> for <strong>${wanted.email}</strong>.</p>
<dl class="facts"><dt>Reason</dt><dd>${wanted.reason}</dd><dt>Audited as</dt><dd>${services.actor}</dd></dl>
<form method="post" action="/address/action">
<input type="hidden" name="csrf" value="${services.csrf}">
<input type="hidden" name="action" value="${wanted.action}"><input type="hidden" name="email" value="${wanted.email}">
<input type="hidden" name="reason" value="${wanted.reason}">${wanted.topic ? html`<input type="hidden" name="topic" value="${wanted.topic}">` : ''}
<div class="row"><div><button type="submit" class="${wanted.action === 'reactivate' ? 'danger' : ''}">Confirm: ${label.toLowerCase()}</button></div>
<div><a href="/address${query({ email: wanted.email })}">Cancel</a></div></div>
</form>`,
    },
  };
};

export const addressAction: Route = async (request: Request, services: Services) => {
  const store = services.ctx.suppressions();
  const email = services.ctx.address(request.form.get('email') ?? '');
  const wanted = read(request.form, services, (await store.get(email)) !== undefined);
  const action = { actor: services.actor, reason: wanted.reason, at: services.now() };
  if (wanted.action === 'reactivate') await store.reactivate(wanted.email, action);
  else if (wanted.action === 'suppress') await store.suppress(wanted.email, action);
  else if (wanted.action === 'topic-out') await store.unsubscribeTopic(wanted.email, wanted.topic!, action);
  else await store.resubscribeTopic(wanted.email, wanted.topic!, action);
  return { redirect: `/address${query({ email: wanted.email, done: ACTIONS[wanted.action].done })}` };
};
