/** Reputation: per sender bounce and complaint rates, once the reputation reader is in this build. */
import { html } from './html.js';
import { describeTarget, type Route } from './services.js';

export const reputationPage: Route = async (_request, services) => ({
  page: {
    title: 'Reputation',
    section: 'reputation',
    target: describeTarget(services),
    body: html`<p>Per-sender bounce and complaint rates are not in this build yet: they need the reputation reader.</p>`,
  },
});
