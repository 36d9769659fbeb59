/**
 * The HTML previews the local channel sinks write beside each delivered payload in the outbox
 * (`<outbox>/channels/<id>/NNN-<kind>-<event>.html`), for a person to open in a browser after `npm start`:
 * - Slack: the Block Kit drawn close to how Slack shows it, with mrkdwn read the way Slack reads it (links,
 *   mentions, `*bold*`, entities decoded). So a renderer that forgot to escape a product name called `<!channel>`
 *   shows a highlighted @channel here, as it would in Slack, instead of the text it meant;
 * - Teams: the card drawn by the official Adaptive Cards renderer (the `adaptivecards` package), from a script
 *   copied once into `<outbox>/channels/` and referenced relatively: the page works offline and loads nothing else;
 * - webhook: the event's type, id and time, whether its signature verified, and the JSON.
 * Every page fits a 375 px screen, escapes everything it shows and loads nothing from the network: a strict CSP
 * (no script at all, or only 'self' scripts on the Teams page) and remote images drawn as placeholders.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { ChannelKind } from '../../ports/channels.ts';

export interface PreviewInput {
  kind: ChannelKind;
  /** The channel id. */
  channel: string;
  /** ISO 8601. */
  receivedAt: string;
  /** The JSON body as posted. */
  payload: unknown;
  /** Webhooks: the `webhook-id` and `webhook-timestamp` headers and whether the signature verified. */
  webhook?: { id: string; timestamp: string; verified: boolean };
}

/** The files every Teams preview loads from `<outbox>/channels/` (writePreviewAssets). */
export const PREVIEW_ASSETS = { renderer: 'adaptivecards.min.js', cardScript: 'teams-card.js' } as const;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);

/** Slack's own escapes (the only entities Slack decodes for display), in one pass: `&amp;lt;` shows as `&lt;`. */
const SLACK_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>' };
const decodeSlackEntities = (s: string) => s.replace(/&(amp|lt|gt);/g, (_, e: string) => SLACK_ENTITIES[e]!);

const isWebUrl = (url: string) => /^(https?:\/\/|mailto:)/i.test(url);
const link = (url: string, label: string) =>
  `<a class="s-link" href="${escapeHtml(url)}" rel="noopener noreferrer">${escapeHtml(label)}</a>`;
const mention = (label: string) => `<span class="s-mention">${escapeHtml(label)}</span>`;

/** One `<…>` control sequence as Slack shows it: a link, a user/channel/group mention, @channel, a date. */
function controlSequence(inner: string): string {
  const bar = inner.indexOf('|');
  const target = decodeSlackEntities(bar === -1 ? inner : inner.slice(0, bar));
  const label = bar === -1 ? undefined : decodeSlackEntities(inner.slice(bar + 1));
  if (target.startsWith('!date^')) return escapeHtml(label ?? target);
  if (target.startsWith('!subteam^')) return mention(label ?? '@group');
  if (target.startsWith('!')) return mention(`@${target.slice(1)}`);
  if (target.startsWith('@')) return mention(label ? `@${label.replace(/^@/, '')}` : target);
  if (target.startsWith('#')) return mention(label ? `#${label.replace(/^#/, '')}` : target);
  if (isWebUrl(target)) return link(target, label ?? target);
  // Slack turns any other `<…>` into a link too: shown as one (not clickable), so the mistake is seen.
  return `<span class="s-link">${escapeHtml(label ?? target)}</span>`;
}

/** Bold, italic, strike: the marker must hug the text and stand apart from letters around it, as in Slack. */
function emphasis(marker: '*' | '_' | '~'): RegExp {
  const m = marker === '*' ? '\\*' : marker;
  return new RegExp(`(^|[^\\p{L}\\p{N}${m}])${m}(?!\\s)([^${m}\\n]*?[^\\s${m}])${m}(?![\\p{L}\\p{N}${m}])`, 'gu');
}
const EMPHASIS: [RegExp, string][] = [
  [emphasis('*'), 'strong'],
  [emphasis('_'), 'em'],
  [emphasis('~'), 's'],
];

/**
 * Slack mrkdwn as Slack shows it, as safe HTML. Control sequences (`<url|text>`, `<@U1>`, `<!channel>`) are read
 * from the text as sent, before Slack's entities are decoded: an escaped `&lt;!channel&gt;` stays text. Bare URLs
 * become links unless `verbatim` (Slack's auto-parsing).
 */
export function slackMrkdwnToHtml(text: string, opts: { verbatim?: boolean } = {}): string {
  const held: string[] = [];
  // A private-use character (removed from the input first); it marks where a finished HTML fragment goes back in.
  const hold = (html: string) => `\uE000${held.push(html) - 1}\uE000`;
  let s = text.replaceAll('\uE000', '');
  s = s.replace(/<([^<>\n]*)>/g, (_, inner: string) => hold(controlSequence(inner)));
  s = s.replace(/`([^`\n]+)`/g, (_, code: string) => hold(`<code>${escapeHtml(decodeSlackEntities(code))}</code>`));
  s = decodeSlackEntities(s);
  if (!opts.verbatim) {
    s = s.replace(/\bhttps?:\/\/[^\s<>\uE000]+/gi, (url) => {
      const trimmed = url.replace(/[.,;:!?)'"]+$/, '');
      return hold(link(trimmed, trimmed)) + url.slice(trimmed.length);
    });
  }
  s = escapeHtml(s);
  for (const [re, tag] of EMPHASIS)
    s = s.replace(re, (_, before: string, inner: string) => `${before}<${tag}>${inner}</${tag}>`);
  s = s.replaceAll('\n', '<br>');
  return s.replace(/\uE000(\d+)\uE000/g, (_, i: string) => held[Number(i)]!);
}

/** A Block Kit text object: mrkdwn interpreted, plain_text shown as it is (Slack decodes its entities in both). */
function textObject(v: unknown): string {
  if (!isObj(v) || typeof v.text !== 'string') return '';
  if (v.type === 'mrkdwn') return slackMrkdwnToHtml(v.text, { verbatim: v.verbatim === true });
  return escapeHtml(decodeSlackEntities(v.text));
}

/** A remote image is never loaded by a preview: its alt text and address stand in its place. */
function imagePlaceholder(v: Obj, className: string): string {
  const alt = str(v.alt_text) ?? '';
  const url = str(v.image_url) ?? '';
  return (
    `<div class="${className}" role="img" aria-label="${escapeHtml(alt)}"><span>Image: ${escapeHtml(alt)}</span>` +
    `<small>${escapeHtml(url)} (not loaded in the preview)</small></div>`
  );
}

function slackElement(v: unknown): string {
  if (!isObj(v)) return '';
  if (v.type === 'image') return imagePlaceholder(v, 's-thumb');
  if (v.type !== 'button') return '';
  const label = textObject(v.text);
  const url = str(v.url);
  return url && isWebUrl(url)
    ? `<a class="s-button" href="${escapeHtml(url)}" rel="noopener noreferrer">${label}</a>`
    : `<span class="s-button">${label}</span>`;
}

function slackBlock(block: unknown): string {
  if (!isObj(block)) return '';
  switch (block.type) {
    case 'header':
      return `<h2 class="s-header">${textObject(block.text)}</h2>`;
    case 'section': {
      const text = block.text === undefined ? '' : `<div class="s-text">${textObject(block.text)}</div>`;
      const fields = Array.isArray(block.fields)
        ? `<div class="s-fields">${block.fields.map((f) => `<div class="s-field">${textObject(f)}</div>`).join('')}</div>`
        : '';
      const accessory =
        block.accessory === undefined ? '' : `<div class="s-accessory">${slackElement(block.accessory)}</div>`;
      return `<section class="s-section"><div class="s-main">${text}${fields}</div>${accessory}</section>`;
    }
    case 'context': {
      const elements = Array.isArray(block.elements) ? block.elements : [];
      const parts = elements.map((e) =>
        isObj(e) && e.type === 'image'
          ? `<span>[${escapeHtml(str(e.alt_text) ?? '')}]</span>`
          : `<span>${textObject(e)}</span>`,
      );
      return `<div class="s-context">${parts.join('')}</div>`;
    }
    case 'actions':
      return `<div class="s-actions">${(Array.isArray(block.elements) ? block.elements : []).map(slackElement).join('')}</div>`;
    case 'image': {
      const title = isObj(block.title) ? `<figcaption>${textObject(block.title)}</figcaption>` : '';
      return `<figure class="s-figure">${imagePlaceholder(block, 's-image')}${title}</figure>`;
    }
    case 'divider':
      return '<hr class="s-divider">';
    default:
      return `<pre class="s-unknown">${escapeHtml(JSON.stringify(block, null, 2))}</pre>`;
  }
}

function slackBody(payload: unknown): string {
  const p = isObj(payload) ? payload : {};
  const text = str(p.text);
  const blocks = Array.isArray(p.blocks) ? p.blocks : [];
  // With blocks, Slack shows the blocks and uses `text` only for the notification.
  const content =
    blocks.length > 0 ? blocks.map(slackBlock).join('') : `<div class="s-text">${slackMrkdwnToHtml(text ?? '')}</div>`;
  const notification =
    blocks.length > 0 && text !== undefined
      ? `<p class="note">Notification text: <span class="s-notification">${slackMrkdwnToHtml(text)}</span></p>`
      : '';
  return (
    `<article class="s-message"><div class="s-avatar" aria-hidden="true">P</div><div class="s-content">` +
    `<div class="s-who"><strong>Pulse</strong> <span class="s-app">APP</span></div>${content}</div></article>` +
    notification
  );
}

function teamsBody(payload: unknown): string {
  // The card goes in as a JSON data block (never run); `<` escaped so no text can close the script element.
  const json = JSON.stringify(payload ?? null).replace(/</g, '\\u003c');
  return (
    '<div id="card-host" class="card-host"></div>' +
    '<noscript><p class="note">The card is drawn by a script: see the JSON below.</p></noscript>' +
    `<script type="application/json" id="card-json">${json}</script>` +
    `<script src="../${PREVIEW_ASSETS.renderer}"></script><script src="../${PREVIEW_ASSETS.cardScript}"></script>`
  );
}

function webhookBody(payload: unknown, webhook: PreviewInput['webhook']): string {
  const p = isObj(payload) ? payload : {};
  const seconds = Number(webhook?.timestamp);
  const sentAt = Number.isFinite(seconds) && webhook?.timestamp ? new Date(seconds * 1000).toISOString() : '';
  const rows: [string, string][] = [
    ['Event type', str(p.type) ?? ''],
    ['webhook-id', webhook?.id ?? ''],
    ['webhook-timestamp', sentAt ? `${webhook?.timestamp} (${sentAt})` : (webhook?.timestamp ?? '')],
    ['Event timestamp', str(p.timestamp) ?? ''],
    ['Signature verified with the Standard Webhooks library', webhook?.verified ? 'yes' : 'no'],
  ];
  return `<dl class="facts">${rows.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
}

const CSS = `
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.46 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d1c1d;background:#f8f8f8;overflow-wrap:anywhere}
.page{max-width:760px;margin:0 auto;padding:16px 12px 32px}
h1{font-size:1.2rem;margin:0 0 4px}
.meta,.note{color:#616061;font-size:.85rem;margin:4px 0 12px}
.panel{background:#fff;border:1px solid #ddd;border-radius:8px;padding:12px;min-width:0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;border-radius:6px;padding:8px;font-size:.8rem;margin:8px 0 0}
details{margin-top:16px}
summary{cursor:pointer;color:#1264a3}
code{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em;background:#f4f4f4;border:1px solid #e0e0e0;border-radius:3px;padding:0 3px;color:#c01343}
.s-message{display:flex;gap:8px;align-items:flex-start}
.s-avatar{flex:0 0 36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;font-weight:700;display:flex;align-items:center;justify-content:center}
.s-content{flex:1 1 auto;min-width:0}
.s-who{margin-bottom:2px}
.s-app{font-size:.65rem;background:#e8e8e8;color:#616061;border-radius:2px;padding:1px 3px;vertical-align:middle}
.s-header{font-size:1.1rem;font-weight:900;margin:6px 0}
.s-section{display:flex;flex-wrap:wrap;gap:8px;margin:6px 0}
.s-main{flex:1 1 220px;min-width:0}
.s-accessory{flex:0 0 auto}
.s-fields{display:grid;grid-template-columns:repeat(2,minmax(0,1fr));gap:8px 16px;margin-top:6px}
.s-context{display:flex;flex-wrap:wrap;gap:4px 8px;font-size:.75rem;color:#616061;margin:6px 0}
.s-actions{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.s-button{display:inline-block;border:1px solid #bbb;border-radius:4px;padding:3px 12px;font-weight:700;font-size:.85rem;color:#1d1c1d;text-decoration:none;background:#fff}
.s-link{color:#1264a3;text-decoration:underline}
.s-mention{color:#1264a3;background:#e8f5fa;border-radius:3px;padding:0 2px}
.s-figure{margin:6px 0}
.s-image,.s-thumb{display:flex;flex-direction:column;gap:2px;border:1px dashed #bbb;border-radius:6px;padding:12px;color:#616061;background:#fafafa}
.s-thumb{padding:4px;font-size:.75rem;max-width:120px}
.s-divider{border:0;border-top:1px solid #ddd;margin:8px 0}
.card-host{background:#fff;border:1px solid #ddd;border-radius:8px;overflow:hidden}
.card-host img{max-width:100%}
.facts{display:grid;grid-template-columns:minmax(0,max-content) minmax(0,1fr);gap:4px 12px;margin:0}
.facts dt{font-weight:700}
.facts dd{margin:0}
@media (max-width:480px){.facts{grid-template-columns:minmax(0,1fr)}.facts dd{margin-bottom:6px}}
`;
const CSS_HASH = `'sha256-${createHash('sha256').update(CSS).digest('base64')}'`;

const KIND_NAMES: Record<ChannelKind, string> = { slack: 'Slack', teams: 'Microsoft Teams', webhook: 'Webhook' };

/** The whole preview page of one delivered post. */
export function renderChannelPreview(input: PreviewInput): string {
  const kindName = KIND_NAMES[input.kind];
  const scripts = input.kind === 'teams' ? "script-src 'self'" : "script-src 'none'";
  const csp = `default-src 'none'; ${scripts}; style-src ${CSS_HASH}; img-src data:; base-uri 'none'; form-action 'none'`;
  const body =
    input.kind === 'slack'
      ? slackBody(input.payload)
      : input.kind === 'teams'
        ? teamsBody(input.payload)
        : webhookBody(input.payload, input.webhook);
  const title = `${kindName} · ${input.channel}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
</head>
<body>
<div class="page">
<h1>${escapeHtml(kindName)} message to channel <code>${escapeHtml(input.channel)}</code></h1>
<p class="meta">Received by the local ${escapeHtml(kindName)} sink at ${escapeHtml(input.receivedAt)}</p>
<div class="panel">${body}</div>
<details${input.kind === 'webhook' ? ' open' : ''}><summary>Payload JSON</summary><pre>${escapeHtml(JSON.stringify(input.payload, null, 2) ?? '')}</pre></details>
</div>
</body>
</html>
`;
}

/**
 * The Teams preview's own script: draws every Adaptive Card of the envelope in the page's JSON data block with the
 * official renderer. Card markdown (bold, italic, links: what Teams renders) is turned into escaped HTML here, as
 * the renderer leaves it to its host; remote images become placeholders, so opening a preview requests nothing.
 */
const TEAMS_CARD_SCRIPT = `/* Pulse local outbox: draws the Teams preview's Adaptive Card (see channel-preview.ts). */
(function () {
  'use strict';
  var AC = window.AdaptiveCards;
  var host = document.getElementById('card-host');
  var envelope = JSON.parse(document.getElementById('card-json').textContent);
  var PLACEHOLDER = 'data:image/svg+xml,' + encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="160" height="90"><rect width="160" height="90" fill="#eee"/>' +
    '<text x="80" y="50" font-size="12" text-anchor="middle" fill="#666">image not loaded</text></svg>');
  function escapeHtml(s) {
    return s.replace(/[&<>"']/g, function (c) {
      return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c];
    });
  }
  // CommonMark's backslash escapes (Teams honours them): the escaped character is held out of the markdown rules
  // as a numbered placeholder and put back as a character reference.
  function markdown(text) {
    var held = [];
    var unescaped = text.replace(/\\\\([!-\\/:-@[-\\u0060{-~])/g, function (_, c) {
      held.push(c);
      return '\\u0000' + (held.length - 1) + '\\u0000';
    });
    var html = escapeHtml(unescaped)
      .replace(/\\[([^\\]\\n]+)\\]\\((https?:\\/\\/[^\\s)]+)\\)/g, '<a href="$2" rel="noopener noreferrer">$1</a>')
      .replace(/\\*\\*(?=\\S)([^*\\n]*?\\S)\\*\\*/g, '<strong>$1</strong>')
      .replace(/(^|[^\\w*])[*_](?=\\S)([^*_\\n]*?\\S)[*_](?![\\w*])/g, '$1<em>$2</em>');
    html = html.replace(/\\u0000(\\d+)\\u0000/g, function (_, i) {
      return '&#' + held[Number(i)].charCodeAt(0) + ';';
    });
    return html.replace(/\\n/g, '<br>');
  }
  function offline(node) {
    if (Array.isArray(node)) return node.map(offline);
    if (!node || typeof node !== 'object') return node;
    var copy = {};
    Object.keys(node).forEach(function (k) {
      var v = node[k];
      if ((k === 'url' && (node.type === 'Image')) || k === 'iconUrl') copy[k] = PLACEHOLDER;
      else if (k === 'backgroundImage') copy[k] = typeof v === 'string' ? PLACEHOLDER : Object.assign({}, v, { url: PLACEHOLDER });
      else copy[k] = offline(v);
    });
    return copy;
  }
  AC.AdaptiveCard.onProcessMarkdown = function (text, result) {
    result.outputHtml = markdown(text);
    result.didProcess = true;
  };
  (envelope.attachments || []).forEach(function (attachment) {
    var card = new AC.AdaptiveCard();
    card.parse(offline(attachment.content));
    var element = card.render();
    if (element) host.appendChild(element);
  });
})();
`;

const adaptiveCardsScript = () => createRequire(import.meta.url).resolve('adaptivecards/dist/adaptivecards.min.js');

async function writeIfChanged(path: string, content: string | Buffer): Promise<void> {
  const current = await readFile(path).catch(() => undefined);
  if (current?.equals(Buffer.from(content))) return;
  const tmp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  await writeFile(tmp, content);
  await rename(tmp, path);
}

/**
 * Puts the Adaptive Cards renderer and the card script in `channelsDir` (the outbox's `channels/`), unless they are
 * there already: written once, shared by every Teams preview under it.
 */
export async function writePreviewAssets(channelsDir: string): Promise<void> {
  const renderer = join(channelsDir, PREVIEW_ASSETS.renderer);
  const source = adaptiveCardsScript();
  const [have, want] = await Promise.all([stat(renderer).catch(() => undefined), stat(source)]);
  if (have?.size !== want.size) await writeIfChanged(renderer, await readFile(source));
  await writeIfChanged(join(channelsDir, PREVIEW_ASSETS.cardScript), TEAMS_CARD_SCRIPT);
}
