/** `pulse licenses [alerts]`: license key alerts, once per key, stage and recipient (see docs/licenses.md "License alerts"). */
import { channelIdOf } from '../core/channels/channel-targets.ts';
import { recipientTable } from '../licenses/alerts/recipient-table.ts';
import { type LicenseAlertResult, runLicenseAlerts } from '../licenses/alerts/run-license-alerts.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';
import {
  JOB_EXIT_CODES_HELP,
  JOB_OPTIONS,
  JOB_OPTIONS_HELP,
  loadJob,
  report,
  requireKnown,
  runJob,
} from './job-command.ts';
import { unknownDeliveriesOption } from './unknown-deliveries-option.ts';

export const LICENSES_ALERTS_HELP = `Usage: pulse licenses [alerts] [options]

Reads each product's license key registry and emails every key that reached a new stage (days before expiry, the
expiry day, days after; over quota; blocked or expired but still in use) to the recipients its routing rule names
(else the owner): one email per recipient, each (product, key, stage, expiry date, recipient) at most once.

A recipient's first run of a product (nothing recorded for them yet) follows licenses.firstRun: "summary" (the
default) sends one summary email listing the keys already in a stage and records them, so later runs alert only
on stage changes; "send-all" sends every stage due. Preview it with --dry-run: a table of the alerts per recipient
and stage, the exact numbers a run would send then (--json: "recipients").

Options:
${JOB_OPTIONS_HELP.replace('plan and check without sending or writing', 'print the alerts per recipient and stage that would be sent; reads the\n                     ledger, writes and sends nothing')}
  --product ID       only this product (repeatable)
  --resend-unknown   send again the alerts whose earlier email may or may not have gone out (check the mail
                     server's log first)
  --confirm-unknown  record those alerts as delivered, without sending (the mail server's log showed the email)

${JOB_EXIT_CODES_HELP}
  (0: sent, or nothing new; 1: a registry not read, an email failed, sent but unconfirmed, or unknown)
`;

export async function licensesAlertsCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags('licenses', args, {
    ...JOB_OPTIONS,
    product: { type: 'string', multiple: true },
    'resend-unknown': { type: 'boolean' },
    'confirm-unknown': { type: 'boolean' },
  });
  if (values.help) {
    io.stdout.write(LICENSES_ALERTS_HELP);
    return EXIT.ok;
  }
  const unknownDeliveries = unknownDeliveriesOption(values, values['dry-run'] ? '--dry-run' : undefined);
  const productIds = values.product as string[] | undefined;
  const setup = loadJob(values, io);
  if (!setup.config.licenses) throw new UsageError('the config has no "licenses" section: nothing to alert');
  const watched = setup.config.licenses.productIds ?? setup.config.products.map((p) => p.id);
  requireKnown('--product', productIds, watched, "the config's license products");
  return runJob('license-alerts', setup, io, async (runtime) => {
    const result = await runLicenseAlerts(runtime.config, runtime.ports, {
      ...(productIds ? { productIds } : {}),
      dryRun: values['dry-run'] === true,
      ...(unknownDeliveries ? { unknownDeliveries } : {}),
    });
    if (values['dry-run'] && !values.json) {
      // Who would be told what: every recipient, not the first few.
      for (const line of dryRunLines(result)) io.stdout.write(`${line}\n`);
      return report({ ...result, outputs: [] }, false, io);
    }
    return report(result, values.json as boolean | undefined, io);
  });
}

/** The dry run's words: what would go out, then the table of alerts per recipient and stage. */
function dryRunLines(result: LicenseAlertResult): string[] {
  const { counts, recipients } = result;
  if (recipients.length === 0) return ['Nothing would be sent: no alert is due.'];
  const posts = recipients.filter((r) => channelIdOf(r.address) !== undefined).length;
  const emails = recipients.length - posts;
  const summaries = counts.summaries;
  const messages = [
    ...(emails > 0 ? [`${emails} email${emails === 1 ? '' : 's'}`] : []),
    ...(posts > 0 ? [`${posts} channel message${posts === 1 ? '' : 's'}`] : []),
  ].join(' and ');
  const lines = [
    `Would send ${messages} with ${counts.alertsSent} alert${counts.alertsSent === 1 ? '' : 's'}` +
      (summaries > 0
        ? ` (${summaries} first-run summar${summaries === 1 ? 'y' : 'ies'}: see licenses.firstRun):`
        : ':'),
    '',
    ...recipientTable(recipients),
    '',
  ];
  return lines;
}
