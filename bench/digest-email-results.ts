/** Rows and notes of bench/digest-function.ts and bench/digest-email.ts (issue 13's budgets). */
import type { Row } from './results.ts';

/** bench/digest-function.ts */
export interface DigestFunctionResult {
  jsKb: number;
  zipMb: number;
  unzippedMb: number;
  largestFiles: string[];
  initMs: number;
  moduleMs: number;
  initRuns: number[];
  targets: { jsKb: number; zipMb: number; initMs: number };
}

/** bench/digest-email.ts */
export interface DigestEmailResult {
  targetKb: number;
  sizes: {
    products: number;
    htmlKb: number;
    textKb: number;
    messageKb: number;
    images: number;
    imagesKb: number;
    reportKb: number;
    charts: number;
    prepareMs: number;
  }[];
}

export function digestEmailRows(fn: DigestFunctionResult, email: DigestEmailResult): Row[] {
  return [
    ...email.sizes.map(
      (s): Row => ({
        metric: `digest email HTML part, ${s.products} product${s.products === 1 ? '' : 's'} (Gmail clips at 102 KB)`,
        value: s.htmlKb,
        unit: 'KB',
        target: email.targetKb,
        detail: `real digest from the emulator; text part ${s.textKb} KB, ${s.images} inline charts ${s.imagesKb} KB, whole message ${s.messageKb} KB; full report page ${s.reportKb} KB with ${s.charts} charts`,
      }),
    ),
    {
      metric: 'digest function zipped (JS, templates, wasm renderer, fonts)',
      value: fn.zipMb,
      unit: 'MB',
      target: fn.targets.zipMb,
      detail: `deflate as the CDK asset; ${fn.unzippedMb} MB unzipped; JS ${fn.jsKb} KB (≤ ${fn.targets.jsKb} KB); largest: ${fn.largestFiles.join(', ')}`,
    },
    {
      metric: 'digest function module init + chart renderer init',
      value: fn.initMs,
      unit: 'ms',
      target: fn.targets.initMs,
      detail: `median of ${fn.initRuns.length} fresh processes with the function's NODE_OPTIONS (${fn.initRuns.join(', ')} ms); module alone ${fn.moduleMs} ms`,
    },
  ];
}

export function digestEmailNotes(fn: DigestFunctionResult, email: DigestEmailResult): string {
  const ten = email.sizes.at(-1)!;
  const [fastest] = [...fn.initRuns].sort((a, b) => a - b);
  return `
- **Digest email size** (bench/digest-email.ts): real digests of 1, 3 and 10 products prepared end to end from the
  emulator's data, sent through nodemailer's stream transport and parsed back; the figure is the decoded HTML part, the
  part Gmail clips above 102 KB. The email is the summary (headline figures, one block per product with two charts);
  the tables live in the full report page, archived beside it. Preparing the 10-product digest (collect, figures,
  ${ten.charts} charts, email and report) took ${ten.prepareMs} ms.
- **Digest function** (bench/digest-function.ts): the handler bundled like the construct bundles it, with the compiled
  templates and the chart renderer's wasm and DejaVu Sans Condensed fonts beside it (src/charts/assets.ts), zipped with
  deflate like the CDK asset. Init is measured from \`import()\` of the bundle until the renderer the module starts is
  ready, in fresh processes (fastest ${fastest} ms); Lambda at the function's 1024 MB has about 0.6 of a vCPU, so expect it slower there.
`;
}
