import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTemplates, COMPILED_DIR, staleTemplates, TEMPLATES_DIR } from '../../scripts/build-templates.ts';
import { loadTemplate, TemplateMissingError, templatesDir } from '../../src/core/render/compiled-templates.ts';
import { renderFailureNotice } from '../../src/core/render/owner-notices.ts';
import { renderDigestEmail } from '../../src/digest/render/digest-email.ts';
import { EMAIL_HIGHLIGHTS } from '../../src/digest/render/digest-model.ts';
import { HOSTILE, hostileView, sampleView } from './sample-views.ts';

let dir: string;
let digestHtml: string;
let noticeHtml: string;

beforeAll(async () => {
  // Compile from the MJML sources now, so these tests never read a stale templates/compiled/.
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
    expect(html).not.toMatch(/fonts\.googleapis|<link |<svg/);
  });

  it('is the summary: the week, the first highlights, a headline row per product, then one block per product', () => {
    const view = sampleView();
    view.highlights.push('Fifth.', 'Sixth.', 'Seventh.');
    const { html } = render(view);
    expect(html).toMatch(/<h1 [^>]*>Weekly product digest<\/h1>/);
    expect(html).toContain('Week 46 · 9–15 Nov 2026');
    for (const h of view.highlights.slice(0, EMAIL_HIGHLIGHTS)) expect(html).toContain(`>${h}</li>`);
    expect(html).not.toContain('>Sixth.</li>');
    expect(html).toContain('>2 more changes in the full report</a>');
    // The headline: the total and each product, linked to its section of the full report.
    for (const row of view.headline.rows) expect(html).toContain(`#${row.anchor}" class="link"`);
    expect(html).toContain('75,793</b><br><span class="pulse-bad hl-change" style="');
    // Blocks for the products, not for the total (its figures are the headline's first row).
    const products = view.products.filter((p) => !p.isTotal);
    for (const p of products) {
      expect(html).toContain(`>${p.name}</h2>`);
      expect(html).toContain(`>Full report for ${p.name} &#8594;</a>`);
      expect(html).toContain(`>${p.notable}</p>`);
    }
    expect(html).not.toContain('>All products</h2>');
    expect(count(html, 'class="kpi"')).toBe(4 * products.length);
    expect(html).toContain('<br>+18.0% vs last week<br>+9.7% vs 4-week avg</td>');
    expect(count(html, '<img ')).toBe(2 * products.length);
    expect(html).toContain('<b>Top exception:</b> java.lang.IllegalStateException');
    // No table of the full report is in the email.
    expect(html).not.toContain('Most frequent exceptions');
  });

  it('marks trends with an arrow and a word, coloured by good/bad', () => {
    const { html } = render();
    const kpi = (value: string, tone: string, colour: string, arrow: string, word: string) =>
      expect(html).toContain(`>${value}</b><br><b class="pulse-${tone}" style="color:${colour}">${arrow} ${word}</b>`);
    kpi('1,234', 'good', '#1a7f37', '▲', 'better');
    kpi('42,107', 'bad', '#c4281c', '▼', 'worse');
    kpi('311', 'bad', '#c4281c', '▲', 'worse');
    kpi('61.0%', 'neutral', '#5b6472', '▬', 'unchanged');
  });

  it('shows the email charts as cid images with alt text and width/height attributes, clamped to the layout', () => {
    const view = sampleView();
    const product = view.products[1]!;
    product.charts[0]!.width = 1104;
    product.charts[0]!.height = 440;
    const { html } = render(view);
    expect(html).toContain(
      `<img src="cid:active-${product.id}.png" alt="${product.charts[0]!.alt}" width="552" height="220" class="chart"`,
    );
    // Charts of the full report only (retention, versions, countries) stay out of the email.
    expect(html).not.toContain(`cid:retention-${product.id}.png`);
  });

  it('leaves out the banner, highlights and links when the view has none', () => {
    const plain = render(sampleView({ banner: null, highlights: [], viewInBrowserUrl: null })).html;
    expect(plain).not.toContain('role="alert"');
    expect(plain).not.toContain('What changed');
    expect(plain).not.toContain('View in browser');
    expect(plain).not.toContain('Full report for');
    const full = render(sampleView({ banner: 'Data incomplete: exception lines missing' })).html;
    expect(full).toContain('<div role="alert">&#9888; Data incomplete: exception lines missing</div>');
    expect(full).toContain(
      '<a href="https://pulse-archive.example.com/digests/weekly/2026-W46/index.html?sig=abc123&amp;x=1#product-12345678901" class="link"',
    );
  });

  it("links a local run's full report on disk", () => {
    const { html } = render(sampleView({ viewInBrowserUrl: 'file:///home/me/.pulse/outbox/digest-w.html' }));
    expect(html).toContain('href="file:///home/me/.pulse/outbox/digest-w.html#product-12345678901"');
  });

  it('a single-product digest has one headline row and one block', () => {
    const { html } = render(sampleView({}, 1));
    expect(count(html, 'hl-name')).toBe(1);
    expect(count(html, 'class="h2"')).toBe(2); // "What changed" and the product
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
  });
});

describe('digest text part', () => {
  it('carries the same figures: week, banner, highlights, headline, KPIs, chart numbers, exception, links', () => {
    const view = sampleView({ banner: 'Data incomplete: exception lines missing' });
    const { text } = render(view);
    expect(text.startsWith('Weekly product digest\nWeek 46 · 9–15 Nov 2026\n=======================\n')).toBe(true);
    expect(text).toContain('!! Data incomplete: exception lines missing');
    expect(text).toContain(`What changed\n------------\n- ${view.highlights[0]}`);
    expect(text).toContain(
      '- All products: Active clients 75,793 (−0.4%, worse) · New clients 2,221 (+12.5%, better) · Lost clients 560 (+18.0%, worse)',
    );
    expect(text).toContain('Lost clients: 311 ▲ worse\n  +18.0% vs last week\n  +9.7% vs 4-week avg');
    expect(text).toContain('Still engaged after 8 weeks: 61.0% ▬ unchanged');
    const product = view.products[1]!;
    expect(text).toContain(`Chart: ${product.charts[0]!.alt}`);
    expect(text).toContain(`Top exception: ${product.topException}`);
    expect(text).toContain(
      'Full report: https://pulse-archive.example.com/digests/weekly/2026-W46/index.html?sig=abc123&x=1#product-12345678901',
    );
    expect(text).toContain(
      'Full report in your browser: https://pulse-archive.example.com/digests/weekly/2026-W46/index.html?sig=abc123&x=1',
    );
    expect(text.trimEnd().endsWith('Generated 2026-11-16 08:00 Europe/Berlin by Pulse')).toBe(true);
  });

  it('keeps hostile text literal and leaves out an unsafe link', () => {
    const { text } = render(hostileView());
    expect(text).toContain(HOSTILE.script);
    expect(text).toContain(HOSTILE.imgOnError);
    expect(text).not.toContain('Full report');
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
      'usage-alert.html',
    ]);
    expect(templatesDir()).toBe(COMPILED_DIR);
  });

  it('templates/compiled/ (committed, what a production install renders from) is what the sources compile to', async () => {
    // Failing here: run `npm run build:templates` and commit templates/compiled/.
    expect(await staleTemplates(TEMPLATES_DIR, COMPILED_DIR)).toEqual([]);
  });

  it('the check names a compiled file that is stale, missing or has no source', async () => {
    const out = join(dir, 'stale');
    await buildTemplates(TEMPLATES_DIR, out);
    expect(await staleTemplates(TEMPLATES_DIR, out)).toEqual([]);
    await writeFile(join(out, 'digest.html'), '<p>old</p>');
    await rm(join(out, 'license-alert.html'));
    await writeFile(join(out, 'renamed.html'), '<p>gone</p>');
    expect(await staleTemplates(TEMPLATES_DIR, out)).toEqual([
      'digest.html differs from what its source compiles to',
      'license-alert.html is missing',
      'renamed.html has no source template',
    ]);
    // A build puts it right, removing the HTML whose source is gone.
    await buildTemplates(TEMPLATES_DIR, out);
    expect(await staleTemplates(TEMPLATES_DIR, out)).toEqual([]);
    expect(existsSync(join(out, 'renamed.html'))).toBe(false);
  });

  it('loads from a directory once, and says how to build when the file is missing', () => {
    const first = loadTemplate('digest', undefined, dir);
    expect(loadTemplate('digest', undefined, dir)).toBe(first);
    expect(first.render({ ...sampleViewModelStub() }).length).toBeGreaterThan(1000);
    const empty = join(dir, 'nothing-here');
    expect(() => loadTemplate('digest', undefined, empty)).toThrow(TemplateMissingError);
    expect(() => loadTemplate('digest', undefined, empty)).toThrow(
      /it ships in templates\/compiled\/.*run `npm run build:templates`/,
    );
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
    moreHighlights: null,
    headline: { columns: [], rows: [] },
    products: [],
    viewInBrowserUrl: null,
    footer: 'f',
  };
}
