/**
 * The unsubscribe pages: plain HTML and one inline stylesheet, no script, no external asset, so they
 * work with JavaScript off and under a CSP of `default-src 'none'`. Every piece of text that comes
 * from a token or a setting is escaped. Colours meet WCAG AA (the lowest pair, #4b5563 on #ffffff,
 * is 7.6:1), focus is a thick visible outline, and the layout is one column that fits a phone.
 */
import { createHash } from 'node:crypto';
import { maskAddress, type PageSettings, topicLabel } from './settings.js';
import { GLOBAL_TOPIC, type UnsubscribeClaims } from './token.js';

const STYLE = [
  ':root{color-scheme:light}',
  'body{margin:0;background:#f3f4f6;color:#111827;font:1.0625rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'main{box-sizing:border-box;max-width:34rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:.75rem;box-shadow:0 1px 3px rgba(0,0,0,.12)}',
  '@media (max-width:36rem){main{margin:0;border-radius:0;min-height:100vh}}',
  '.brand{margin:0 0 .5rem;color:#4b5563;font-size:.9375rem;font-weight:600}',
  'h1{margin:0 0 1rem;font-size:1.5rem;line-height:1.25;overflow-wrap:anywhere}',
  'p{margin:0 0 1rem;color:#374151}',
  'form{margin:1.5rem 0 0}',
  'button{min-height:2.75rem;padding:.625rem 1.25rem;border:2px solid #1d4ed8;border-radius:.5rem;background:#1d4ed8;color:#fff;font:inherit;font-weight:600;cursor:pointer}',
  'button.secondary{background:#fff;color:#1d4ed8}',
  'button:hover{background:#1e40af;border-color:#1e40af;color:#fff}',
  'button:focus-visible{outline:3px solid #111827;outline-offset:3px}',
  '.small{color:#4b5563;font-size:.9375rem}',
].join('');

/** The CSP names the stylesheet by hash, so nothing else can style (or script) the page. */
export const STYLE_HASH = `sha256-${createHash('sha256').update(STYLE, 'utf8').digest('base64')}`;

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': `default-src 'none'; style-src '${STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

interface Layout {
  heading: string;
  /** Already-escaped HTML. */
  headingHtml?: string;
  paragraphs: string[];
  form?: { token: string; fields: Record<string, string>; label: string; secondary?: boolean; intro?: string };
}

function render(page: PageSettings, layout: Layout): string {
  const title = page.brand ? `${layout.heading} · ${page.brand}` : layout.heading;
  const form = layout.form
    ? [
        layout.form.intro ? `<p class="small">${escapeHtml(layout.form.intro)}</p>` : '',
        // Relative action: the same /unsubscribe/{token} URL, whatever prefix the front door adds.
        `<form method="post" action="${escapeHtml(layout.form.token)}">`,
        ...Object.entries(layout.form.fields).map(
          ([n, v]) => `<input type="hidden" name="${escapeHtml(n)}" value="${escapeHtml(v)}">`,
        ),
        `<button type="submit"${layout.form.secondary ? ' class="secondary"' : ''}>${escapeHtml(layout.form.label)}</button>`,
        '</form>',
      ].join('')
    : '';
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>`,
    '<body><main>',
    page.brand ? `<p class="brand">${escapeHtml(page.brand)}</p>` : '',
    `<h1>${layout.headingHtml ?? escapeHtml(layout.heading)}</h1>`,
    ...layout.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    form,
    '</main></body></html>',
  ].join('\n');
}

function subject(claims: UnsubscribeClaims, page: PageSettings): { masked: string; label: string } {
  return { masked: maskAddress(claims.email), label: topicLabel(claims.topic, page) };
}

/** GET: the question and one button. Nothing is written until the button is pressed. */
export function confirmPage(claims: UnsubscribeClaims, token: string, page: PageSettings): string {
  const { masked, label } = subject(claims, page);
  return render(page, {
    heading: `Unsubscribe ${masked} from ${label}?`,
    headingHtml: `Unsubscribe ${escapeHtml(masked)} from <em>${escapeHtml(label)}</em>?`,
    paragraphs: [
      claims.topic === GLOBAL_TOPIC
        ? 'You will stop receiving our mailing lists at this address.'
        : `You will stop receiving ${label} at this address. Other mail is not affected.`,
    ],
    form: { token, fields: { 'List-Unsubscribe': 'One-Click' }, label: 'Unsubscribe' },
  });
}

/** After the POST: done, and for a topic a way back (an opt-in dated after the opt-out). */
export function unsubscribedPage(claims: UnsubscribeClaims, token: string, page: PageSettings): string {
  const { masked, label } = subject(claims, page);
  const global = claims.topic === GLOBAL_TOPIC;
  return render(page, {
    heading: 'You are unsubscribed',
    paragraphs: [
      global ? `${masked} will no longer receive our mailing lists.` : `${masked} will no longer receive ${label}.`,
    ],
    form: global
      ? undefined
      : {
          token,
          fields: { action: 'resubscribe' },
          label: 'Resubscribe',
          secondary: true,
          intro: 'Unsubscribed by mistake?',
        },
  });
}

export function resubscribedPage(claims: UnsubscribeClaims, page: PageSettings): string {
  const { masked, label } = subject(claims, page);
  return render(page, { heading: 'You are subscribed again', paragraphs: [`${masked} will receive ${label} again.`] });
}

export type ProblemKind = 'invalid_token' | 'expired_token' | 'bad_request' | 'not_configured' | 'unavailable';

const PROBLEMS: Record<ProblemKind, { heading: string; text: string }> = {
  invalid_token: {
    heading: 'This unsubscribe link does not work',
    text: 'It may have been copied incompletely. Use the unsubscribe link in a recent message, or reply to that message and ask to be removed.',
  },
  expired_token: {
    heading: 'This unsubscribe link has expired',
    text: 'Use the unsubscribe link in a more recent message, or reply to one of our messages and ask to be removed.',
  },
  bad_request: {
    heading: 'This request was not understood',
    text: 'Open the unsubscribe link again and use the button on the page.',
  },
  not_configured: {
    heading: 'Unsubscribe links are not set up here',
    text: 'Reply to one of our messages and ask to be removed.',
  },
  unavailable: {
    heading: 'Something went wrong on our side',
    text: 'Nothing was changed. Please try again in a minute.',
  },
};

export function problemPage(kind: ProblemKind, page: PageSettings): string {
  const { heading, text } = PROBLEMS[kind];
  return render(page, { heading, paragraphs: [text] });
}

export function problemText(kind: ProblemKind): string {
  return `${PROBLEMS[kind].heading}. ${PROBLEMS[kind].text}\n`;
}
