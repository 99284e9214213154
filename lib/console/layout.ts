/**
 * The console's page shell: landmarks (header, nav, main), a skip link, the target in the header, and
 * one stylesheet served by the console itself (the CSP allows nothing else). No script.
 */
import { type Html, html } from './html.js';

export interface Shell {
  title: string;
  /** The nav entry to mark as current. */
  section: 'address' | 'lists' | 'reputation' | 'health' | 'none';
  target: string;
  body: Html;
}

const NAV: Array<[Shell['section'], string, string]> = [
  ['address', '/address', 'Address'],
  ['lists', '/lists', 'Lists'],
  ['reputation', '/reputation', 'Reputation'],
  ['health', '/health', 'Health'],
];

export function page(shell: Shell): string {
  const nav = NAV.map(
    ([id, href, label]) =>
      html`<li><a href="${href}"${id === shell.section ? html` aria-current="page"` : ''}>${label}</a></li>`,
  );
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shell.title} · Ratchet console</title>
<link rel="stylesheet" href="/console.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<p class="brand">Ratchet console</p>
<nav aria-label="Sections"><ul>${nav}</ul></nav>
<p class="target">Target: ${shell.target}</p>
</header>
<main id="main" tabindex="-1">
<h1>${shell.title}</h1>
${shell.body}
</main>
</body>
</html>
`.text;
}

/** Served at /console.css. Colours meet WCAG AA contrast on white; every focusable thing shows its focus. */
export const STYLESHEET = `
*{box-sizing:border-box}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1a1a1a;background:#fff}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.5rem;padding:.75rem 1rem;background:#1f2937;color:#fff}
header a{color:#fff}
.brand{margin:0;font-weight:700}
.target{margin:0;font-size:.85rem;color:#e5e7eb;overflow-wrap:anywhere}
nav ul{display:flex;flex-wrap:wrap;gap:1rem;margin:0;padding:0;list-style:none}
nav a[aria-current]{font-weight:700;text-decoration-thickness:3px}
main{padding:1rem;max-width:72rem}
main:focus{outline:none}
a{color:#0b57d0}
a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,summary:focus-visible,textarea:focus-visible{outline:3px solid #b45309;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;color:#0b57d0;padding:.5rem}
.skip:focus{left:.5rem}
h1{font-size:1.6rem;margin:.5rem 0 1rem}
h2{font-size:1.25rem;margin:1.5rem 0 .5rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d1d5db;vertical-align:top;overflow-wrap:break-word}
td code,td .key{word-break:break-all}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:.5rem 0}
dl.facts dt{font-weight:600}
dl.facts dd{margin:0}
td dl{margin:0}
td dt{font-weight:600;font-size:.85rem}
td dd{margin:0 0 .25rem}
th{background:#f3f4f6}
.scroll{overflow-x:auto}
form{margin:.5rem 0}
fieldset{border:1px solid #9ca3af;padding:.75rem;margin:.75rem 0}
label{display:block;font-weight:600;margin:.25rem 0}
input,select,textarea{font:inherit;padding:.35rem .5rem;border:1px solid #6b7280;border-radius:4px;max-width:100%}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
.row>div{min-width:10rem}
button{font:inherit;padding:.4rem .9rem;border:1px solid #1f2937;border-radius:4px;background:#1f2937;color:#fff;cursor:pointer}
button.danger{background:#991b1b;border-color:#991b1b}
.badge{display:inline-block;padding:0 .4rem;border-radius:4px;font-weight:600}
.suppressed{background:#fee2e2;color:#7f1d1d}
.active{background:#dcfce7;color:#14532d}
.warn{background:#fef3c7;color:#78350f}
.skip{background:#f3f4f6;color:#374151}
.discounted{color:#4b5563;text-decoration:line-through}
.notice{padding:.5rem .75rem;border-left:4px solid #15803d;background:#f0fdf4}
.problem{padding:.5rem .75rem;border-left:4px solid #b91c1c;background:#fef2f2}
.muted{color:#4b5563}
pre{background:#f3f4f6;padding:.75rem;overflow-x:auto;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.85rem}
code{font-size:.9em}
svg text{font:12px system-ui,sans-serif;fill:#1a1a1a}
`;
