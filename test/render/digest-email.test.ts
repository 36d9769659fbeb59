import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILD_DIR, buildTemplates, TEMPLATES_DIR } from '../../scripts/build-templates.ts';
import { loadTemplate, TemplateMissingError, templatesDir } from '../../src/render/compiled-templates.ts';
import { renderDigestEmail } from '../../src/render/digest-email.ts';
import { renderFailureNotice } from '../../src/render/failure-notice.ts';
import { HOSTILE, hostileView, sampleView } from './sample-views.ts';

let dir: string;
let digestHtml: string;
let noticeHtml: string;

beforeAll(async () => {
  // Compile from the MJML sources now, so these tests never read a stale build/.
  dir = await mkdtemp(join(tmpdir(), 'pulse-templates-'));
  await buildTemplates(TEMPLATES_DIR, dir);
  digestHtml = await readFile(join(dir, 'digest.html'), 'utf8');
  noticeHtml = await readFile(join(dir, 'failure-notice.html'), 'utf8');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const render = (view = sampleView()) => renderDigestEmail(view, digestHtml);
const count = (html: string, needle: string) => html.split(needle).length - 1;

describe('digest HTML', () => {
  it('fills every placeholder and block marker, and keeps the Outlook conditionals', () => {
    const { html } = render();
    expect(html).not.toContain('[[');
    expect(html).not.toContain(']]');
    expect(html).toContain('<!--[if mso | IE]>');
    expect(html).not.toMatch(/fonts\.googleapis|<link /);
  });

  it('shows title, week, highlights, one section per product with KPIs, charts and tables', () => {
    const view = sampleView();
    const { html } = render(view);
    expect(html).toMatch(/<h1 [^>]*>Weekly product digest<\/h1>/);
    expect(html).toContain('Week 46 · 9–15 Nov 2026');
    for (const h of view.highlights) expect(html).toContain(`>${h}</li>`);
    for (const p of view.products) expect(html).toContain(`>${p.name}</h2>`);
    expect(count(html, 'Summary of all products')).toBe(1);
    expect(count(html, 'class="kpi-label"')).toBe(12);
    expect(html).toContain('+18.0% vs last week · +9.7% vs 4-week avg');
    expect(count(html, '<img ')).toBe(3);
    // The total's table has 4 columns; each product shows 3 tables of 3 (version adoption is empty: no header).
    expect(count(html, '<th ')).toBe(4 + 2 * (3 + 3 + 3));
    expect(html).toContain('>No version adoption this week.</p>');
  });

  it('marks trends with an arrow and a word, coloured by good/bad', () => {
    const { html } = render();
    const trend = (value: string, tone: string, colour: string, arrow: string, word: string) => {
      const span = `<span class="pulse-${tone}" style="color:${colour}">`;
      expect(html).toContain(`${value} ${span}${arrow}</span>`);
      expect(html).toContain(`${span}${word}</span>`);
    };
    trend('1,234', 'good', '#1a7f37', '▲', 'better');
    trend('42,107', 'bad', '#c4281c', '▼', 'worse');
    trend('311', 'bad', '#c4281c', '▲', 'worse');
    trend('2.1%', 'neutral', '#5b6472', '▬', 'unchanged');
  });

  it('renders charts as cid images with alt text and width/height attributes, clamped to the layout', () => {
    const view = sampleView();
    view.products[1]!.charts[0]!.width = 1104;
    view.products[1]!.charts[0]!.height = 440;
    const { html } = render(view);
    expect(html).toContain(
      '<img src="cid:active-12345678901@pulse" alt="Active clients per week, last 12 weeks; this week 42,107 (−0.4%)" width="552" height="220" style="display:block;width:100%;max-width:552px;',
    );
  });

  it('right-aligns numeric columns and stripes rows', () => {
    const { html } = render();
    expect(html).toMatch(/<td class="td" align="right" style="[^"]*white-space:nowrap">183,220<\/td>/);
    expect(html).toMatch(/<td class="td" align="left" style="[^"]*white-space:normal">Project opened<\/td>/);
    expect(html).toContain('<tr class="pulse-zebra" bgcolor="#f4f6f9" style="background-color:#f4f6f9">');
  });

  it('leaves out the banner, highlights and link when the view has none', () => {
    const plain = render(sampleView({ banner: null, highlights: [], viewInBrowserUrl: null })).html;
    expect(plain).not.toContain('role="alert"');
    expect(plain).not.toContain('What changed');
    expect(plain).not.toContain('View in browser');
    const full = render(sampleView({ banner: 'Data incomplete: exception lines missing' })).html;
    expect(full).toContain('<div role="alert">&#9888; Data incomplete: exception lines missing</div>');
    expect(full).toContain('What changed');
    expect(full).toContain(
      '<a href="https://pulse-archive.example.com/digests/weekly/2026-W46/index.html?sig=abc123&amp;x=1" class="link"',
    );
  });

  it('a single-product digest has no summary section', () => {
    const view = sampleView();
    view.products = [view.products[1]!];
    expect(render(view).html).not.toContain('Summary of all products');
  });

  it('escapes hostile values everywhere and drops a javascript: link', () => {
    const { html } = render(hostileView());
    // Attribute-level checks on the parsed DOM are in email-in-browser.test.ts; here: no raw form got through.
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img src=x/i);
    expect(html).not.toContain("' onmouseover='");
    expect(html).not.toContain('javascript:');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('<a href="#" class="link"');
    expect(html).toContain('src="cid:x&quot; onerror=&quot;alert(1)"');
  });
});

describe('digest text part', () => {
  it('has the title, week, banner, highlights, KPIs, chart headlines, aligned tables and the link', () => {
    const view = sampleView({ banner: 'Data incomplete: exception lines missing' });
    const { text } = render(view);
    expect(text.startsWith('Weekly product digest\nWeek 46 · 9–15 Nov 2026\n=======================\n')).toBe(true);
    expect(text).toContain('!! Data incomplete: exception lines missing');
    expect(text).toContain(`What changed\n------------\n- ${view.highlights[0]}`);
    expect(text).toContain('All products (summary of all products)');
    expect(text).toContain('Lost clients: 311 ▲ worse\n  +18.0% vs last week · +9.7% vs 4-week avg');
    expect(text).toContain('Churn rate: 2.1% ▬ unchanged');
    expect(text).toContain('Chart: Active clients per week, last 12 weeks; this week 42,107 (−0.4%)');
    expect(text).toContain(
      [
        'Top events',
        'Event                                                       Count  Share',
        '--------------------------------------------------------  -------  -----',
        'Project opened                                            183,220  31.4%',
        'Export finished (PDF, high quality, with embedded fonts)   92,004  15.8%',
      ].join('\n'),
    );
    expect(text).toContain('Version adoption\nNo version adoption this week.');
    expect(text).toContain(
      'View in browser: https://pulse-archive.example.com/digests/weekly/2026-W46/index.html?sig=abc123&x=1',
    );
    expect(text.trimEnd().endsWith('Generated 2026-11-16 08:00 Europe/Berlin by Pulse')).toBe(true);
  });

  it('lists a table too wide for 78 columns row by row', () => {
    const { text } = render();
    expect(text).toContain(
      '- Exception: System.IO.FileNotFoundException: C:\\Users\\Public\\Documents\\AcmeStudio\\Templates\\default.tpl\n  Clients: 31\n  Count: 77',
    );
    expect(text).toContain('United Kingdom of Great Britain and Northern Ireland   4,730   −0.8%');
    for (const line of text.split('\n').filter((l) => !l.startsWith('- ') && !l.startsWith('  ')))
      expect([...line].length, line).toBeLessThanOrEqual(100);
  });

  it('keeps hostile text literal and leaves out an unsafe link', () => {
    const { text } = render(hostileView());
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(HOSTILE.imgOnError);
    expect(text).not.toContain('View in browser');
    expect(text).not.toContain('javascript:');
  });
});

describe('compiled templates on disk', () => {
  it('the build writes one HTML file per top-level template, none for partials', async () => {
    const written = await buildTemplates(TEMPLATES_DIR, dir);
    expect(written.map((f) => f.slice(dir.length + 1)).sort()).toEqual([
      'digest-report.html',
      'digest.html',
      'failure-notice.html',
      'license-alert.html',
      'license-report.html',
    ]);
    expect(templatesDir()).toBe(BUILD_DIR);
  });

  it('loads from a directory once, and says how to build when the file is missing', () => {
    const first = loadTemplate('digest', undefined, dir);
    expect(loadTemplate('digest', undefined, dir)).toBe(first);
    expect(first.render({ ...sampleViewModelStub() }).length).toBeGreaterThan(1000);
    const empty = join(dir, 'nothing-here');
    expect(() => loadTemplate('digest', undefined, empty)).toThrow(TemplateMissingError);
    expect(() => loadTemplate('digest', undefined, empty)).toThrow(/run `npm run build:templates`/);
  });
});

describe('failure notice', () => {
  it('says which digest and week were held, why, and how to force it; hostile reasons escaped', () => {
    const notice = renderFailureNotice(
      {
        digestId: 'weekly',
        digestTitle: 'Weekly product digest',
        isoWeek: '2026-W46',
        reasons: ['dateRangeReport for 12345678901 failed: 503 Service Unavailable', HOSTILE.imgOnError],
        heldAt: '2026-11-16 08:00 Europe/Berlin',
        forceCommand: 'pulse digest --digest weekly --force',
        footer: 'Pulse',
      },
      noticeHtml,
    );
    expect(notice.subject).toBe('Digest held: Weekly product digest (weekly), 2026-W46');
    expect(notice.html).not.toContain('[[');
    expect(notice.html).toContain('>dateRangeReport for 12345678901 failed: 503 Service Unavailable</li>');
    expect(notice.html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</li>');
    expect(notice.html).toContain('pulse digest --digest weekly --force</div>');
    expect(notice.html).not.toContain('View in browser');
    expect(notice.text).toContain('- dateRangeReport for 12345678901 failed: 503 Service Unavailable');
    expect(notice.text).toContain('  pulse digest --digest weekly --force');
    expect(notice.text).toContain('Held at 2026-11-16 08:00 Europe/Berlin');
  });
});

/** The smallest data digest.html accepts: proves the loaded file is the digest template. */
function sampleViewModelStub() {
  return {
    title: 't',
    weekLabel: 'w',
    preview: 'p',
    banner: null,
    highlights: [],
    products: [],
    viewInBrowserUrl: null,
    footer: 'f',
  };
}
