import { describe, expect, it } from 'vitest';
import { compileTemplate, escapeHtml, safeUrl, TemplateError } from '../../src/core/render/templater.ts';

const render = (source: string, data: object) => compileTemplate(source, 't').render(data);

describe('templater values', () => {
  it('escapes & < > " \' in text and attributes', () => {
    const hostile = `<b title='x'>"Tom" & Jerry</b>`;
    const escaped = '&lt;b title=&#39;x&#39;&gt;&quot;Tom&quot; &amp; Jerry&lt;/b&gt;';
    expect(render('<p>[[v]]</p>', { v: hostile })).toBe(`<p>${escaped}</p>`);
    expect(render('<p title="[[v]]">x</p>', { v: hostile })).toBe(`<p title="${escaped}">x</p>`);
    expect(escapeHtml('plain text')).toBe('plain text');
  });

  it('renders numbers and booleans as text, null as nothing', () => {
    expect(render('[[a]]|[[b]]|[[c]]', { a: 42, b: false, c: null })).toBe('42|false|');
  });

  it('resolves dotted paths, the innermost #each item first, then outer scopes', () => {
    const data = { unit: 'ms', p: { name: 'A', items: [{ v: 1 }, { v: 2, unit: 's' }] } };
    expect(render('[[p.name]]:[[#each p.items]] [[v]][[unit]][[/each]]', data)).toBe('A: 1ms 2s');
  });

  it('fails loudly on a name that resolves nowhere, on objects and on prototype names', () => {
    expect(() => render('[[missing]]', {})).toThrow(/\[\[missing\]\] has no value/);
    expect(() => render('[[a.b]]', { a: {} })).toThrow(TemplateError);
    expect(() => render('[[a]]', { a: { b: 1 } })).toThrow(/is not text/);
    expect(() => render('[[constructor]]', {})).toThrow(/has no value/);
    expect(() => render('[[a.toString]]', { a: 'x' })).toThrow(/has no value/);
  });
});

describe('templater URLs and CSS', () => {
  it('lets http, https and cid URLs through and turns everything else into #', () => {
    expect(safeUrl('https://example.com/a b?x=1&y=2')).toBe('https://example.com/a%20b?x=1&y=2');
    expect(safeUrl('cid:chart-1@pulse')).toBe('cid:chart-1@pulse');
    for (const bad of [
      'javascript:alert(1)',
      ' JavaScript:alert(1)',
      'java\nscript:alert(1)',
      'data:text/html,x',
      '/rel',
      '//host/x',
      'mailto:a@b.c',
    ])
      expect(safeUrl(bad)).toBe('#');
  });

  it('lets exactly an inline base64 PNG through, and no other data: URL', () => {
    const png =
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/q842iQAAAABJRU5ErkJggg==';
    expect(safeUrl(png)).toBe(png);
    expect(compileTemplate('<img src="[[url:u]]">').render({ u: png })).toBe(`<img src="${png}">`);
    for (const bad of [
      'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
      'data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=',
      'data:image/svg+xml,<svg onload=alert(1)>',
      'data:image/png,%89PNG',
      'data:image/png;charset=utf-8;base64,iVBORw0K',
      'DATA:image/png;base64,iVBORw0K',
      ' data:image/png;base64,iVBORw0K',
      'data:image/png;base64,iVBORw0K"><script>',
      'data:image/png;base64,iVBO Rw0K',
      'data:image/png;base64,iVBORw0K\n',
      'data:image/png;base64,',
    ])
      expect(safeUrl(bad)).toBe('#');
  });

  it('escapes a valid URL for the attribute and replaces an unsafe one', () => {
    const tpl = compileTemplate('<a href="[[url:u]]">x</a>');
    expect(tpl.render({ u: 'https://e.com/?a=1&b="2"' })).toBe('<a href="https://e.com/?a=1&amp;b=%222%22">x</a>');
    expect(tpl.render({ u: 'javascript:alert(1)' })).toBe('<a href="#">x</a>');
  });

  it('keeps CSS tokens and drops anything that could close the declaration', () => {
    const tpl = compileTemplate('<td style="color:[[css:c]];width:[[css:w]]">x</td>');
    expect(tpl.render({ c: '#1a7f37', w: '50%' })).toBe('<td style="color:#1a7f37;width:50%">x</td>');
    expect(tpl.render({ c: 'red;background:url(x)', w: 'expression(alert(1))' })).toBe(
      '<td style="color:;width:">x</td>',
    );
  });
});

describe('templater blocks', () => {
  it('#if / #unless / else, with lists true when non-empty', () => {
    const tpl = compileTemplate('[[#if a]]A[[else]]no A[[/if]]|[[#unless b]]no B[[/unless]]|[[#if list]]L[[/if]]');
    expect(tpl.render({ a: 'x', b: null, list: [1] })).toBe('A|no B|L');
    expect(tpl.render({ a: '', b: 'y', list: [] })).toBe('no A||');
  });

  it('#each over strings with [[.]], and else for an empty list', () => {
    const tpl = compileTemplate('<ul>[[#each xs]]<li>[[.]]</li>[[else]]<li>none</li>[[/each]]</ul>');
    expect(tpl.render({ xs: ['a', '<b>'] })).toBe('<ul><li>a</li><li>&lt;b&gt;</li></ul>');
    expect(tpl.render({ xs: [] })).toBe('<ul><li>none</li></ul>');
    expect(() => tpl.render({ xs: 'abc' })).toThrow(/needs a list/);
  });

  it('consumes the HTML comment around a block tag (how markers survive mjml)', () => {
    const tpl = compileTemplate(
      '<div><!--[[#each xs]]--><p>[[.]]</p><!-- [[/each]] --></div><!--[if mso]>x<![endif]-->',
    );
    expect(tpl.render({ xs: ['a', 'b'] })).toBe('<div><p>a</p><p>b</p></div><!--[if mso]>x<![endif]-->');
  });

  it('rejects unbalanced and unknown blocks with the line number', () => {
    expect(() => compileTemplate('a\n[[#if x]]b', 'f')).toThrow('f:2: [[#if x]] is never closed');
    expect(() => compileTemplate('[[#if x]][[/each]]')).toThrow(/does not close/);
    expect(() => compileTemplate('[[/if]]')).toThrow(/does not close/);
    expect(() => compileTemplate('[[else]]')).toThrow(/without an open block/);
    expect(() => compileTemplate('[[#with x]][[/with]]')).toThrow(/unknown block/);
    expect(() => compileTemplate('[[a b]]')).toThrow(/bad placeholder/);
  });
});

describe('templater contexts (checked when compiling)', () => {
  it.each([
    ['<a href="[[u]]">', /does not fit a href attribute/],
    ['<img src="x[[url:u]]">', /whole src value/],
    ['<td style="color:[[c]]">', /does not fit a style attribute/],
    ['<p title="[[url:u]]">', /does not fit a title attribute/],
    ['<p>[[url:u]]</p>', /outside an attribute/],
    ['<p>[[css:c]]</p>', /outside an attribute/],
    ['<p onclick="[[x]]">', /event handler/],
    ['<p title=[[x]]>', /double-quoted attribute/],
    ['<style>p { color: [[c]] }</style>', /inside a <style> element/],
    ['<script>var x = "[[x]]";</script>', /inside a <script> element/],
  ])('%s is refused', (source, message) => {
    expect(() => compileTemplate(source)).toThrow(message);
  });

  it('accepts escaped text after a literal # in an href: a link within the page', () => {
    const tpl = compileTemplate('<a href="#[[id]]">x</a>');
    expect(tpl.render({ id: 'product-1' })).toBe('<a href="#product-1">x</a>');
    expect(tpl.render({ id: '"><script>' })).toBe('<a href="#&quot;&gt;&lt;script&gt;">x</a>');
    expect(tpl.render({ id: 'javascript:alert(1)' })).toBe('<a href="#javascript:alert(1)">x</a>');
    expect(() => compileTemplate('<a href="#[[url:u]]">')).toThrow(/whole href value/);
    expect(() => compileTemplate('<a href="#x[[id]]">')).toThrow(/does not fit a href attribute/);
    expect(() => compileTemplate('<img src="#[[id]]">')).toThrow(/does not fit a src attribute/);
  });

  it('accepts text after a closed style element and inside Outlook conditional comments', () => {
    const tpl = compileTemplate('<style>p{}</style><p>[[x]]</p><!--[if mso]><td width="[[x]]"><![endif]-->');
    expect(tpl.render({ x: '1' })).toBe('<style>p{}</style><p>1</p><!--[if mso]><td width="1"><![endif]-->');
  });
});
