/**
 * A tiny, logic-light templater over HTML compiled from MJML at build time (no mjml at run time). Syntax, chosen
 * because mjml 5 passes `[[ ]]` through untouched (it rewrites `{{ }}`):
 *
 * - `[[path.to.value]]`        HTML-escaped text (& < > " ' escaped, so it is safe in text and quoted attributes);
 *                              `[[.]]` is the current item of an `#each`.
 * - `[[url:path]]`             a URL, only as the whole value of an `href`/`src` attribute; http, https, cid and
 *                              file URLs pass, anything else becomes `#`.
 * - `[[css:path]]`             a CSS token, only inside a `style` attribute; anything beyond `[#a-zA-Z0-9.,% -]`
 *                              becomes empty (so a value can never close the declaration).
 * - `href="#[[path]]"`         a link within the page: escaped text after a literal `#`, so it can only ever name a
 *                              fragment of the same document (the full report's contents and section links).
 * - `[[#if path]]`, `[[#unless path]]`, `[[#each path]]`, `[[else]]`, `[[/if]]`, `[[/unless]]`, `[[/each]]` blocks.
 *   A block tag may be wrapped in an HTML comment (`<!--[[#each products]]-->`, placed with `<mj-raw>` between MJML
 *   sections); the comment goes with it.
 *
 * Names resolve in the innermost `#each` item first, then outwards. A name that resolves nowhere is an error (a typo
 * must not silently render as nothing); `null` renders as empty text and is false. The source is compiled once into
 * a tree of closures (no eval), and each placeholder's HTML context is checked at compile time.
 */

export class TemplateError extends Error {
  override name = 'TemplateError';
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const NEEDS_ESCAPE = /[&<>"']/;
const ESCAPE_ALL = /[&<>"']/g;

export function escapeHtml(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPE_ALL, (c) => ESCAPES[c]!) : text;
}

/** `file:` for the full report of a local run, which lives beside the outbox (src/adapters/local/report-folder.ts). */
const SAFE_SCHEMES = new Set(['http:', 'https:', 'cid:', 'file:']);

/** The URL when its scheme is http, https, cid or file; `#` for anything else (javascript:, data:, relative, junk). */
export function safeUrl(value: string): string {
  // Also an inline PNG (the full report page carries its charts in itself): exactly this form, nothing else of data:.
  if (DATA_PNG.test(value)) return value;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return '#';
  }
  if (!SAFE_SCHEMES.has(url.protocol)) return '#';
  return url.protocol === 'cid:' ? value.trim() : url.href;
}

/** `data:image/png;base64,` and base64 characters only: no other media type, parameter or percent-encoding. */
const DATA_PNG = /^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/;

const CSS_TOKEN = /^[#a-zA-Z0-9.,% -]*$/;

/** A value for a CSS declaration: colours, lengths, keywords; anything else renders as empty. */
export function safeCss(value: string): string {
  return CSS_TOKEN.test(value) ? value : '';
}

type Scope = { value: unknown; parent: Scope | null };
type Part = (scope: Scope) => string;
type Kind = 'text' | 'url' | 'css';

export interface CompiledTemplate {
  render(data: object): string;
}

export function compileTemplate(source: string, name = 'template'): CompiledTemplate {
  const parts = parse(source, name);
  return {
    render(data) {
      const scope: Scope = { value: data, parent: null };
      let out = '';
      for (const part of parts) out += part(scope);
      return out;
    },
  };
}

/** `<!--[[#tag]]-->` (comment consumed) or `[[…]]`. */
const TAG = /<!--\s*\[\[\s*([#/][^[\]]*?|else)\s*\]\]\s*-->|\[\[\s*([^[\]]+?)\s*\]\]/g;
const PATH = /^(?:\.|[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)$/;

interface Frame {
  tag: 'if' | 'unless' | 'each' | 'root';
  path: string;
  parts: Part[];
  elseParts: Part[] | null;
  at: number;
}

function parse(source: string, name: string): Part[] {
  const fail = (at: number, message: string): never => {
    const line = source.slice(0, at).split('\n').length;
    throw new TemplateError(`${name}:${line}: ${message}`);
  };
  const root: Frame = { tag: 'root', path: '', parts: [], elseParts: null, at: 0 };
  const stack: Frame[] = [root];
  const current = () => stack.at(-1)!;
  const emit = (part: Part) => {
    const frame = current();
    (frame.elseParts ?? frame.parts).push(part);
  };
  let last = 0;
  for (const m of source.matchAll(TAG)) {
    const at = m.index;
    if (at > last) emit(constant(source.slice(last, at)));
    last = at + m[0].length;
    const block = m[1];
    const expr = m[2]!;
    const tag = block ?? expr;
    if (tag === 'else') {
      const frame = current();
      if (frame.tag === 'root' || frame.elseParts) fail(at, '[[else]] without an open block');
      frame.elseParts = [];
    } else if (tag.startsWith('#')) {
      const [, kind, path] = /^#(if|unless|each)\s+(\S+)$/.exec(tag) ?? fail(at, `unknown block [[${tag}]]`);
      if (!PATH.test(path!)) fail(at, `bad path in [[${tag}]]`);
      stack.push({ tag: kind as Frame['tag'], path: path!, parts: [], elseParts: null, at });
    } else if (tag.startsWith('/')) {
      const frame = current();
      if (frame.tag === 'root' || `/${frame.tag}` !== tag) fail(at, `[[${tag}]] does not close [[#${frame.tag}]]`);
      stack.pop();
      emit(blockPart(frame, name));
    } else if (block === undefined) {
      emit(valuePart(expr, contextKind(source, at, expr, fail), name, fail, at));
    }
  }
  if (last < source.length) emit(constant(source.slice(last)));
  if (stack.length > 1) fail(current().at, `[[#${current().tag} ${current().path}]] is never closed`);
  return root.parts;
}

const constant =
  (text: string): Part =>
  () =>
    text;

function valuePart(expr: string, kind: Kind, name: string, fail: (at: number, m: string) => never, at: number): Part {
  const path = kind === 'text' ? expr : expr.slice(kind.length + 1);
  if (!PATH.test(path)) fail(at, `bad placeholder [[${expr}]]`);
  const read = reader(path, name);
  const filter = kind === 'url' ? safeUrl : kind === 'css' ? safeCss : (s: string) => s;
  return (scope) => escapeHtml(filter(toText(read(scope), path, name)));
}

function blockPart(frame: Frame, name: string): Part {
  const read = reader(frame.path, name);
  const run = (parts: Part[], scope: Scope) => {
    let out = '';
    for (const part of parts) out += part(scope);
    return out;
  };
  const { parts, elseParts } = frame;
  if (frame.tag === 'each') {
    return (scope) => {
      const list = read(scope);
      if (!Array.isArray(list)) throw new TemplateError(`${name}: [[#each ${frame.path}]] needs a list`);
      if (list.length === 0) return elseParts ? run(elseParts, scope) : '';
      let out = '';
      for (const item of list) out += run(parts, { value: item, parent: scope });
      return out;
    };
  }
  const wanted = frame.tag === 'if';
  return (scope) => {
    if (truthy(read(scope)) === wanted) return run(parts, scope);
    return elseParts ? run(elseParts, scope) : '';
  };
}

function truthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function toText(value: unknown, path: string, name: string): string {
  if (typeof value === 'string') return value;
  if (value === null) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new TemplateError(`${name}: [[${path}]] is not text`);
}

/** A lookup for `a.b.c`: `a` in the innermost scope that has it, then own properties only (no prototype leaks). */
function reader(path: string, name: string): (scope: Scope) => unknown {
  if (path === '.') return (scope) => scope.value;
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  return (scope) => {
    let s: Scope | null = scope;
    while (s && !hasOwn(s.value, head)) s = s.parent;
    if (!s) throw new TemplateError(`${name}: [[${path}]] has no value`);
    let value = (s.value as Record<string, unknown>)[head];
    for (const key of rest) {
      if (!hasOwn(value, key)) throw new TemplateError(`${name}: [[${path}]] has no value`);
      value = (value as Record<string, unknown>)[key];
    }
    return value;
  };
}

const hasOwn = (value: unknown, key: string): boolean =>
  typeof value === 'object' && value !== null && Object.hasOwn(value, key);

/**
 * Where a placeholder sits in the HTML decides what it may be: URLs only as a whole href/src value, CSS tokens only
 * in style attributes, text anywhere else except unquoted attributes, event handlers and style/script elements.
 */
function contextKind(source: string, at: number, expr: string, fail: (at: number, m: string) => never): Kind {
  const kind: Kind = expr.startsWith('url:') ? 'url' : expr.startsWith('css:') ? 'css' : 'text';
  const before = source.slice(0, at);
  const lastOpen = before.lastIndexOf('<');
  const inTag = lastOpen > before.lastIndexOf('>') && !before.startsWith('<!--', lastOpen);
  if (!inTag) {
    const lower = before.toLowerCase();
    for (const raw of ['style', 'script'])
      if (lower.lastIndexOf(`<${raw}`) > lower.lastIndexOf(`</${raw}`))
        fail(at, `[[${expr}]] inside a <${raw}> element`);
    if (kind !== 'text') fail(at, `[[${expr}]] outside an attribute`);
    return kind;
  }
  const attr = /([^\s"'=<>/]+)\s*=\s*"([^"]*)$/.exec(before.slice(lastOpen));
  if (!attr) return fail(at, `[[${expr}]] must sit in a double-quoted attribute value`);
  const attrName = attr[1]!.toLowerCase();
  if (attrName.startsWith('on')) fail(at, `[[${expr}]] in an event handler attribute`);
  // `href="#[[name]]"`: escaped text after a literal `#` is a fragment of this page, never a scheme.
  if (attrName === 'href' && attr[2] === '#' && kind === 'text') return kind;
  const wants: Kind = attrName === 'href' || attrName === 'src' ? 'url' : attrName === 'style' ? 'css' : 'text';
  if (kind !== wants) fail(at, `[[${expr}]] does not fit a ${attrName} attribute (${wants} expected)`);
  if (kind === 'url' && attr[2] !== '') fail(at, `[[${expr}]] must be the whole ${attrName} value`);
  return kind;
}
