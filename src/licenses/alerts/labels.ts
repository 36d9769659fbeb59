/**
 * The labels that say what an alerted key means for the business, from its stage, the registry record and its
 * usage: renewal priority (expiring, heavily used), at risk (expiring, dormant), revenue leak (expired or blocked
 * but still in use) and conversion candidate (a trial expiring). Thresholds from `licenses.usage` and `trialTypes`.
 */
import type { LicensesConfig } from '../../config/schema.ts';
import type { Stage } from './stage.ts';
import type { KeyUsage } from './usage.ts';

export const LABELS = ['revenueLeak', 'renewalPriority', 'atRisk', 'conversionCandidate'] as const;
export type Label = (typeof LABELS)[number];

export const LABEL_TITLES: Record<Label, string> = {
  revenueLeak: 'Revenue leak',
  renewalPriority: 'Renewal priority',
  atRisk: 'At risk',
  conversionCandidate: 'Conversion candidate',
};

const isExpiring = (stage: Stage) => stage === 'expiry-day' || stage.startsWith('before-');

export function labelsOf(
  alert: { stage: Stage; licenseType: string; expiredInUse: boolean },
  usage: KeyUsage,
  config: Pick<LicensesConfig, 'usage' | 'trialTypes'>,
): Label[] {
  const labels: Label[] = [];
  if (alert.stage === 'blocked-in-use' || alert.stage === 'expired-in-use' || alert.expiredInUse) {
    labels.push('revenueLeak');
  }
  if (isExpiring(alert.stage)) {
    if (usage.lastWindow >= config.usage.heavyClients) labels.push('renewalPriority');
    else if (usage.lastWindow <= config.usage.dormantClients) labels.push('atRisk');
    if (config.trialTypes.includes(alert.licenseType)) labels.push('conversionCandidate');
  }
  return labels;
}
