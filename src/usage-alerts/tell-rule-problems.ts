/**
 * Tells a usage rule's `owner` when the rule cannot be judged for a product because the service refused its request
 * (a property the product lacks, a product or feature that is not there): a lasting problem only a change to the
 * rule fixes. One short email per (rule, product, problem), at most once (`usageAlertProblemLedgerKey`, through
 * deliverOnce like every Pulse email), so the hourly runs that keep failing on it do not repeat it. A passing
 * problem (5xx, the network, a rate limit) is told to nobody: the run fails, and its alarm is the notice.
 */
import type { PulseConfig } from '../config/schema.ts';
import { type DeliveryPorts, deliverOnce } from '../core/delivery/deliver-once.ts';
import { deliveredOrUnderWay } from '../core/delivery/delivery-tally.ts';
import { usageAlertProblemLedgerKey } from '../core/delivery/ledger-keys.ts';
import { renderRuleProblemNotice } from '../core/render/owner-notices.ts';

/** What to check, by the error the client named the refusal with (src/client/errors.ts). */
const CHECKS: [string, string][] = [
  [
    'BadRequestError',
    "the rule's metric, filters and segment: a property, value or event the product does not have, or a request the interface does not take",
  ],
  ['NotFoundError', 'the product id in the rule’s productIds (and in products): the service does not know it'],
  ['FeatureNotEnabledError', 'whether the product has the feature the rule’s metric reads enabled in the service'],
  ['PermissionError', 'the service account’s rights to this product’s reports'],
];

/** A rule not judged for a product (run-usage-alerts.ts `RuleProblem`). */
interface Problem {
  ruleId: string;
  productId: string;
  reason: string;
  lasting: boolean;
}

/** Tells each lasting problem's owner once; returns a line per email sent now and per email not sent. */
export async function tellRuleProblems(
  config: PulseConfig,
  ports: DeliveryPorts,
  problems: readonly Problem[],
): Promise<{ told: string[]; errors: string[] }> {
  const out = { told: [] as string[], errors: [] as string[] };
  const rules = config.usageAlerts?.rules ?? [];
  for (const problem of problems) {
    if (!problem.lasting) continue;
    const index = rules.findIndex((r) => r.id === problem.ruleId);
    const rule = rules[index]!;
    const name = config.products.find((p) => p.id === problem.productId)?.name;
    const product = name ? `${name} (${problem.productId})` : problem.productId;
    const errorName = problem.reason.slice(0, problem.reason.indexOf(':'));
    const check = CHECKS.find(([n]) => n === errorName)?.[1] ?? "the rule's metric, filters and segment";
    const notice = renderRuleProblemNotice({
      ruleId: rule.id,
      product,
      reason: problem.reason,
      check: `Check ${check}`,
      field: `usageAlerts.rules[${index}] (id "${rule.id}"): metric, filters, segment, productIds`,
      tryCommand: `pulse usage-alerts --dry-run --rule ${rule.id}`,
      footer: 'Sent by Pulse',
    });
    const key = usageAlertProblemLedgerKey(rule.id, problem.productId, problem.reason);
    const sent = await deliverOnce(ports, key, {
      from: config.mail.from,
      to: rule.owner,
      subject: notice.subject,
      html: notice.html,
      text: notice.text,
      headers: { 'X-Pulse-Notice': 'usage-rule-problem', 'X-Pulse-Usage-Rule': rule.id },
    });
    const about = `rule ${rule.id}, product ${problem.productId}: owner ${rule.owner}`;
    if (sent.outcome === 'sent') out.told.push(`${about} told it cannot be judged`);
    if (!deliveredOrUnderWay(sent)) out.errors.push(`${about} not told: ${sent.outcome}: ${sent.error ?? ''}`);
  }
  return out;
}
