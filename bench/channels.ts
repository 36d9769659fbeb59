/**
 * The channel renderers' target (`node bench/channels.ts`; readable lines on stderr, one JSON line last): building
 * the request a channel is posted (renderChannelRequest: the Slack Block Kit payload, the Teams card envelope, the
 * signed webhook event, each as the exact body string and its headers) from the channel message model, target ≤ 2 ms
 * for every kind and every message a job builds: the digest of 10 products, a license alert batch, and 200 sections
 * (beyond what fits: Slack drops to its block budget, Teams to its payload size). A message with 10 KB of text in
 * every field, which no job builds but service data could, is measured too and reported beside the target.
 */
import { renderChannelRequest } from '../src/core/channels/render-channel.ts';
import { digestMessage, hugeMessage, sampleMessage } from '../test/core/channels/sample-messages.ts';
import { median, round } from './measure.ts';

const RUNS = 2000;
const WARM_UP = 200;
const HUGE_RUNS = 50;
const TARGET_MS = 2;
const KINDS = ['slack', 'teams', 'webhook'] as const;

const opts = {
  eventId: 'msg_bench',
  signingSecret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`,
  now: new Date('2026-11-23T07:00:00Z'),
};
const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * q)]!;

function measure(name: string, message: ReturnType<typeof sampleMessage>, runs: number, warmUp: number) {
  return KINDS.map((kind) => {
    const render = () => renderChannelRequest(kind, message, opts);
    for (let i = 0; i < warmUp; i++) render();
    const times = Array.from({ length: runs }, () => {
      const t = performance.now();
      render();
      return performance.now() - t;
    });
    const bytes = Buffer.byteLength(render().body);
    const r = { message: name, kind, p50Ms: round(median(times), 4), p95Ms: round(quantile(times, 0.95), 4), bytes };
    process.stderr.write(`${name.padEnd(24)} ${kind.padEnd(8)} p50 ${r.p50Ms} ms, p95 ${r.p95Ms} ms, ${bytes} B\n`);
    return r;
  });
}

const many = sampleMessage({
  moreSections: 'and 800 more keys',
  sections: Array.from({ length: 200 }, (_, i) => ({
    title: `KEY-${String(i).padStart(4, '0')} · Example Desktop`,
    text: 'expires in 7 days · 12 clients in the last 30 days',
    facts: [
      { label: 'Seats', value: '12 of 20' },
      { label: 'Expires', value: '2026-11-30' },
    ],
  })),
});
const cases = [
  ...measure('digest, 10 products', digestMessage(10), RUNS, WARM_UP),
  ...measure('license alerts, 5 keys', sampleMessage(), RUNS, WARM_UP),
  ...measure('200 sections', many, RUNS, WARM_UP),
];
const huge = measure('10 KB in every field', hugeMessage(), HUGE_RUNS, 5);
console.log(JSON.stringify({ runs: RUNS, warmUp: WARM_UP, hugeRuns: HUGE_RUNS, targetMs: TARGET_MS, cases, huge }));
