/**
 * A bounce of a usage alerts email (src/mail-events/delivery-of.ts): its ledger key, as tell-changes.ts writes it,
 * names the rule whose owner is told, and the period of its first change; a rule since removed is named as such.
 * A bounce of the notice to a rule's owner that the rule cannot be judged is told to nobody (it is the owner's).
 */
import { describe, expect, it } from 'vitest';
import { EXAMPLE_CONFIG } from '../../src/app/local-options.ts';
import { loadConfig } from '../../src/config/load.ts';
import { usageAlertLedgerKey, usageAlertProblemLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import { deliveryOf } from '../../src/mail-events/delivery-of.ts';
import { seriesKey } from '../../src/usage-alerts/series.ts';

const config = loadConfig(EXAMPLE_CONFIG);
const rule = config.usageAlerts!.rules[0]!;
const key = (ruleId: string, segment: string | null) =>
  usageAlertLedgerKey(
    seriesKey({ ruleId, productId: '9876543210', segment }),
    '2026-10-19',
    'firing',
    'ops@example.com',
  );

describe('a usage alerts email that bounced', () => {
  it('tells the rule’s owner, naming the rule and the period, whatever its segment holds', () => {
    for (const segment of [null, '3.3', 'a#b c/ü'])
      expect(deliveryOf(config, key(rule.id, segment), '2026-11-27T10:40:00Z')).toEqual({
        kind: 'delivery',
        label: {
          owner: rule.owner,
          what: `the usage alerts email of rule ${rule.id} for 2026-10-19`,
          subjectLabel: `usage alerts of ${rule.id}, 2026-10-19`,
          heading: `Usage alerts · ${rule.id} · 2026-10-19`,
          headers: { 'X-Pulse-Usage-Alerts-Notice': rule.id },
        },
      });
  });

  it('of a rule no longer in the config is named as such', () => {
    expect(deliveryOf(config, key('gone', null), '2026-11-27T10:40:00Z')).toEqual({
      kind: 'unknown',
      why: 'usage alert rule gone is not in the config',
    });
  });
});

describe('a notice to a rule’s owner that bounced', () => {
  it('is told to nobody: the notice is the owner’s own', () => {
    const notice = usageAlertProblemLedgerKey(rule.id, '9876543210', 'BadRequestError: dateRangeReport: 400');
    expect(deliveryOf(config, notice, '2026-11-27T10:40:00Z')).toEqual({ kind: 'untold' });
  });

  it('is named by the reason’s stable part: the same refusal on another day is the same problem', () => {
    const on = (day: string) =>
      usageAlertProblemLedgerKey(rule.id, '9876543210', `BadRequestError: 400 startDate ${day} (request 12345678)`);
    expect(on('2026-11-26')).toBe(on('2026-11-27T10:40:00Z'));
    expect(on('2026-11-26')).not.toBe(usageAlertProblemLedgerKey(rule.id, '9876543210', 'NotFoundError: 404'));
    expect(on('2026-11-26')).toMatch(/^usage-alert-problem#server-version-share#9876543210#[0-9a-f]{16}$/);
  });
});
