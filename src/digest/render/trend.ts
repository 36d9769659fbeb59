/**
 * How a trend reads, in the email and the full report alike: an arrow for the direction, a word for good or bad news
 * (never colour alone) and a tone (good, bad, neutral) that each renderer colours its own way.
 */
import type { KpiView } from '../view-model.ts';

export type Tone = 'good' | 'bad' | 'neutral';

/** The light colours of the tones; both renderers brighten them in dark mode. */
export const TREND_COLOURS: Record<Tone, string> = { good: '#1a7f37', bad: '#c4281c', neutral: '#5b6472' };

export const TREND_ARROWS: Record<KpiView['trend'], string> = { up: '▲', down: '▼', flat: '▬' };

type Trend = Pick<KpiView, 'trend' | 'good'>;

/** The word next to the arrow, so good/bad never rests on colour alone. */
export function trendWord(t: Trend): string {
  if (t.good === true) return 'better';
  if (t.good === false) return 'worse';
  return t.trend === 'flat' ? 'unchanged' : '';
}

export const toneOf = (t: Pick<KpiView, 'good'>): Tone =>
  t.good === true ? 'good' : t.good === false ? 'bad' : 'neutral';

/** Arrow, word and tone of a trend. */
export const trendOf = (t: Trend) => ({ arrow: TREND_ARROWS[t.trend], word: trendWord(t), tone: toneOf(t) });
