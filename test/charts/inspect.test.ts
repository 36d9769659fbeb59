import { describe, expect, it } from 'vitest';
import { Canvas, CHART_CHROME, encodePng, inkRatio, isBlank, renderChart } from '../../src/charts/index.ts';

describe('isBlank and inkRatio', () => {
  it('call an all-background image blank, whatever the background', () => {
    expect(isBlank(encodePng(new Canvas(200, 80)))).toBe(true);
    expect(inkRatio(encodePng(new Canvas(200, 80)))).toBe(0);
    const grey = encodePng(new Canvas(50, 20, '#f4f4f4'));
    expect(isBlank(grey, { background: '#f4f4f4' })).toBe(true);
    // Against the default white background, a grey image is all ink.
    expect(inkRatio(grey)).toBe(1);
  });

  it('measure the share of painted pixels', () => {
    const canvas = new Canvas(100, 100);
    canvas.fillRect(10, 10, 20, 5, '#0072b2'); // 100 pixels of 10,000
    expect(inkRatio(encodePng(canvas))).toBe(0.01);
    expect(isBlank(canvas)).toBe(false);
    // A single faint anti-aliased pixel still counts as ink.
    const faint = new Canvas(10, 10);
    faint.fillRect(3, 3, 0.1, 1, '#000000');
    expect(inkRatio(faint)).toBe(0.01);
  });

  it('can ignore the chart chrome, so a chart with only gridlines and axes counts as blank', () => {
    const chrome = new Canvas(100, 40);
    chrome.hline(10, CHART_CHROME[0], 2);
    chrome.hline(38, CHART_CHROME[1], 2);
    expect(isBlank(chrome)).toBe(false);
    expect(isBlank(chrome, { ignore: CHART_CHROME })).toBe(true);
    const withData = renderChart({ kind: 'bars', values: [3, 1, 2] });
    expect(isBlank(withData.png, { ignore: CHART_CHROME })).toBe(false);
    expect(inkRatio(withData.png, { ignore: CHART_CHROME })).toBeGreaterThan(0.1);
  });
});
