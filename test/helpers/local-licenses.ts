/**
 * License alert runs over the real local peers (emulator, dynalite, SMTP sink) on 127.0.0.1: the digest helper's
 * peers and config with a `licenses` section per test, and readers for the license alert emails the sink received
 * (HTML, text and the CSV attachment parsed).
 */

import { parseCsv } from '../../emulator/files/csv.ts';
import { Licenses } from '../../src/config/licenses-schema.ts';
import type { PulseConfig } from '../../src/config/schema.ts';
import { type LicenseAlertOptions, runLicenseAlerts } from '../../src/licenses/alerts/run-license-alerts.ts';
import { type Clock, fixedClock } from '../../src/ports/clock.ts';
import { DIGEST_TODAY, type LocalDigest, type ReceivedMail, startLocalDigest } from './local-digest.ts';

/** The emulator's today (a Monday), 10:00 UTC. */
export const LICENSE_TODAY = DIGEST_TODAY;
export const LICENSE_CLOCK = fixedClock(`${LICENSE_TODAY}T10:00:00Z`);

export interface LicenseMail extends ReceivedMail {
  html: string;
  text: string;
  /** Rows of the CSV attachment (header first), or undefined when there is none. */
  csv: string[][] | undefined;
  csvText: string | undefined;
}

export interface LocalLicenses extends LocalDigest {
  /** The test config with this `licenses` section (as in pulse.config.json). */
  configWith(licenses: Record<string, unknown>): PulseConfig;
  run(
    licenses: Record<string, unknown>,
    opts?: LicenseAlertOptions & { clock?: Clock },
  ): ReturnType<typeof runLicenseAlerts>;
  licenseMails(to?: string): Promise<LicenseMail[]>;
}

export async function startLocalLicenses(
  opts: Pick<Parameters<typeof startLocalDigest>[0], 'registryKeys' | 'mailReactions'> = {},
): Promise<LocalLicenses> {
  const local = await startLocalDigest({ digests: [], ...opts });
  const configWith = (licenses: Record<string, unknown>) => ({ ...local.config, licenses: Licenses.parse(licenses) });
  return {
    ...local,
    configWith,
    run: (licenses, opts = {}) =>
      runLicenseAlerts(configWith(licenses), local.ports(opts.clock ?? LICENSE_CLOCK), opts),
    async licenseMails(to) {
      const mails = (await local.mails()).filter((m) => m.parsed.headers.get('x-pulse-license-alerts') !== undefined);
      return mails
        .filter((m) => to === undefined || m.to === to)
        .map((m) => {
          const csvPart = m.parsed.attachments.find((a) => a.contentType === 'text/csv');
          const csvText = csvPart ? csvPart.content.toString('utf8') : undefined;
          return {
            ...m,
            html: m.parsed.html || '',
            text: m.parsed.text ?? '',
            csv: csvText === undefined ? undefined : parseCsv(csvText),
            csvText,
          };
        });
    },
  };
}

/** CSV rows as objects by header. */
export function csvRecords(rows: string[][]): Record<string, string>[] {
  const [header, ...body] = rows;
  return body.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i] ?? ''])));
}
