/**
 * The usage alert chaos invariants (scripts/chaos/usage-alert-invariants.ts, and their parts in invariants.ts and
 * channel-invariants.ts) pass what a correct run leaves and catch each planted violation: a change in two emails, a
 * change in two chat posts or in more posts than the ledger has keys, a change under two webhook ids, a resolved
 * claimed before any firing, a stored state the ledger does not back, a judged change never told, and a record of a
 * change nobody judged. The outbox files are written as the SMTP and channel sinks write them; the ledger items as
 * the state table snapshot reads them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, describe, expect, it } from 'vitest';
import { checkChannelPosts } from '../../scripts/chaos/channel-invariants.ts';
import { ChaosState, checkEmails, type SeenPost } from '../../scripts/chaos/invariants.ts';
import {
  checkUsageAlertPosts,
  checkUsageAlertStates,
  checkUsageAlertsTold,
  type JudgedChange,
  parseUsageAlertKey,
} from '../../scripts/chaos/usage-alert-invariants.ts';
import type { EpochUsageAlerts } from '../../scripts/chaos/usage-alerts.ts';
import { localSigningSecret } from '../../src/adapters/local/channel-sink.ts';
import type { LedgerItem } from '../../src/console/ledger-snapshot.ts';
import { channelEventId } from '../../src/core/channels/webhook-event.ts';
import { usageAlertLedgerKey } from '../../src/core/delivery/ledger-keys.ts';
import type { SeriesState } from '../../src/ports/usage-alert-states.ts';

const root = mkdtempSync(join(tmpdir(), 'pulse-chaos-usage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const OPS = 'ops+e0@example.com';
const SLACK = 'product-slack-e0';
const HOOKS = 'pulse-events-e0';
const epoch: EpochUsageAlerts = {
  rules: [{ id: 'chaos-surge-e0', recipients: [OPS, `channel:${SLACK}`, `channel:${HOOKS}`] }],
  channels: new Map([
    [SLACK, 'slack'],
    [HOOKS, 'webhook'],
  ]),
};
const SERIES = 'chaos-surge-e0#9876543210#-';
const key = (period: string, state: string, to: string) => usageAlertLedgerKey(SERIES, period, state, to);
const done = (k: string, messageId = channelEventId(k)): LedgerItem => ({
  table: 'pulse',
  key: k,
  state: 'done',
  detail: { messageId },
});
const judged = (period: string, state: string): JudgedChange => ({
  ruleId: 'chaos-surge-e0',
  productId: '9876543210',
  segment: null,
  period,
  state,
});
const FIRING = '2026-11-06';
const RESOLVED = '2026-11-07';
const QUIET: SeriesState = { firing: false, lastJudged: '2026-11-25' };
const names = (s: ChaosState) => s.violations.map((v) => v.invariant);

/** The ledger a correct run leaves: the firing and its resolved told to every recipient, each chat post its own. */
function toldEverywhere(): LedgerItem[] {
  return epoch.rules[0]!.recipients.flatMap((r) => [
    done(key(FIRING, 'firing', r)),
    done(key(RESOLVED, 'resolved', r)),
  ]);
}

it('reads a ledger key back into its series, change and recipient', () => {
  expect(parseUsageAlertKey(key(FIRING, 'firing', `channel:${SLACK}`))).toMatchObject({
    ruleId: 'chaos-surge-e0',
    series: SERIES,
    period: FIRING,
    state: 'firing',
    recipient: `channel:${SLACK}`,
    change: `${SERIES}#${FIRING}#firing`,
  });
  expect(parseUsageAlertKey('digest#exec#2026-W47#ceo@example.com')).toBeUndefined();
});

describe('emails: one per (change, recipient)', () => {
  const outbox = join(root, 'outbox');
  mkdirSync(outbox, { recursive: true });
  const eml = (file: string, to: string, keys: string[] | undefined) =>
    writeFileSync(
      join(outbox, file),
      [
        'From: pulse@example.com',
        `To: ${to}`,
        'Subject: 1 usage alert firing',
        'X-Pulse-Usage-Alerts: 1 firing, 1 resolved',
        ...(keys ? [`X-Pulse-Usage-Alert-Keys: ${keys.join('\r\n ')}`] : []),
        '',
        'Usage alerts',
        '',
      ].join('\r\n'),
    );

  it('passes one email per change, and catches a change emailed again, an email with no keys and a wrong address', async () => {
    const state = new ChaosState();
    eml('001.eml', OPS, [key(FIRING, 'firing', OPS), key(RESOLVED, 'resolved', OPS)]);
    await checkEmails(state, outbox);
    expect(state.violations).toEqual([]);
    expect(state.emails.get('001.eml')?.usageAlerts).toHaveLength(2);

    eml('002.eml', OPS, [key(RESOLVED, 'resolved', OPS)]);
    eml('003.eml', OPS, undefined);
    eml('004.eml', 'cto@example.com', [key('2026-11-15', 'firing', OPS)]);
    await checkEmails(state, outbox);
    expect(state.violations.map((v) => v.detail)).toEqual([
      `${key(RESOLVED, 'resolved', OPS)}: 001.eml and 002.eml`,
      '003.eml: no X-Pulse-Usage-Alert-Keys header',
      `${key('2026-11-15', 'firing', OPS)} sent to cto@example.com`,
    ]);
    expect(new Set(names(state))).toEqual(new Set(['usage alerts: one email per (change, recipient)']));
  });
});

describe('chat posts: one per (change, channel)', () => {
  const post = (file: string, id: string, usageAlerts: number): SeenPost => ({
    file: `${SLACK}/${file}`,
    channel: SLACK,
    kind: 'slack',
    id,
    subjects: [],
    usageAlerts,
  });
  const firing = key(FIRING, 'firing', `channel:${SLACK}`);
  const resolved = key(RESOLVED, 'resolved', `channel:${SLACK}`);

  it('passes one post telling both changes', () => {
    const state = new ChaosState();
    state.channelPosts.set('a', post('001.json', channelEventId(firing), 2));
    checkUsageAlertPosts(state, [done(firing), done(resolved, channelEventId(firing))], epoch);
    expect(state.violations).toEqual([]);
  });

  it('catches a change posted again under another id, and a post telling fewer changes than the ledger says', () => {
    const state = new ChaosState();
    // Posted with the firing, then its claim released behind the post's back and posted again first in its own.
    state.channelPosts.set('a', post('001.json', channelEventId(firing), 2));
    state.channelPosts.set('b', post('002.json', channelEventId(resolved), 1));
    checkUsageAlertPosts(state, [done(firing), done(resolved, channelEventId(firing))], epoch);
    expect(state.violations.map((v) => v.detail)).toEqual([
      `${resolved}: in ${SLACK}/001.json and ${SLACK}/002.json`,
      `${SLACK}: its posts tell 3 changes, the ledger has 2 keys for it`,
    ]);
    const fewer = new ChaosState();
    fewer.channelPosts.set('a', post('001.json', channelEventId(firing), 1));
    checkUsageAlertPosts(fewer, [done(firing), done(resolved, channelEventId(firing))], epoch);
    expect(fewer.violations.map((v) => v.detail)).toEqual([
      `${SLACK}/001.json: tells 1 changes, the ledger records 2 under ${channelEventId(firing)}`,
    ]);
    expect(new Set([...names(state), ...names(fewer)])).toEqual(
      new Set(['usage alerts: one chat post per (change, channel)']),
    );
  });
});

describe('webhooks: each change under one id', () => {
  const dir = join(root, 'webhook-outbox');
  let n = 0;
  /** A signed usage.alerts event as the sink writes it, telling `changes`. */
  const event = (id: string, changes: { period: string; state: string }[]) => {
    const payload = {
      type: 'usage.alerts',
      version: 1,
      id,
      timestamp: '2026-11-27T10:00:00.000Z',
      data: {
        changes: changes.map((c) => ({
          ruleId: 'chaos-surge-e0',
          productId: '9876543210',
          segment: null,
          repeat: false,
          ...c,
        })),
      },
    };
    const at = new Date('2026-11-27T10:00:00Z');
    const signature = new Webhook(localSigningSecret(HOOKS)).sign(id, at, JSON.stringify(payload));
    const headers = {
      'webhook-id': id,
      'webhook-timestamp': String(at.getTime() / 1000),
      'webhook-signature': signature,
    };
    mkdirSync(join(dir, 'channels', HOOKS), { recursive: true });
    const file = join(dir, 'channels', HOOKS, `${String(++n).padStart(3, '0')}-webhook-usage.alerts.json`);
    writeFileSync(
      file,
      JSON.stringify({ kind: 'webhook', channel: HOOKS, receivedAt: at.toISOString(), headers, payload }),
    );
  };

  it('passes an event redelivered under its id, and catches a change in a second event under another id', async () => {
    const state = new ChaosState();
    const first = channelEventId(key(FIRING, 'firing', `channel:${HOOKS}`));
    event(first, [{ period: FIRING, state: 'firing' }]);
    event(first, [{ period: FIRING, state: 'firing' }]);
    await checkChannelPosts(state, dir);
    expect(state.violations).toEqual([]);
    const subject = `usage.alert#${SERIES}#${FIRING}#firing`;
    expect([...state.channelPosts.values()][0]!.subjects).toEqual([subject]);

    event('msg_other', [
      { period: RESOLVED, state: 'resolved' },
      { period: FIRING, state: 'firing' },
    ]);
    await checkChannelPosts(state, dir);
    expect(names(state)).toEqual(['channel: one webhook id per event']);
    expect(state.violations[0]!.detail).toContain(`${subject} under ${first}`);
  });
});

describe('states and the ledger', () => {
  it('passes a quiet series whose firing and resolved were told, and a firing one whose firing was', () => {
    const state = new ChaosState();
    const ledger = toldEverywhere();
    checkUsageAlertStates(state, ledger, new Map([[SERIES, QUIET]]), epoch);
    const firingOnly = ledger.filter((i) => !i.key.includes('#resolved#'));
    const firing: SeriesState = { firing: true, since: FIRING, lastTold: FIRING, lastJudged: FIRING };
    checkUsageAlertStates(state, firingOnly, new Map([[SERIES, firing]]), epoch);
    expect(state.violations).toEqual([]);
  });

  it('catches a resolved claimed with no firing before it, once however often it is checked', () => {
    const state = new ChaosState();
    const ledger = toldEverywhere().filter((i) => i.key !== key(FIRING, 'firing', OPS));
    checkUsageAlertStates(state, ledger, new Map(), epoch);
    checkUsageAlertStates(state, ledger, new Map(), epoch);
    expect(state.violations).toEqual([
      {
        run: 0,
        invariant: 'usage alerts: no resolved before its firing',
        detail: `${key(RESOLVED, 'resolved', OPS)}: no firing claimed before it`,
      },
    ]);
  });

  it('catches a state stored as firing that was never claimed, and one stored quiet after a firing told alone', () => {
    const state = new ChaosState();
    const firing: SeriesState = { firing: true, since: FIRING, lastTold: FIRING, lastJudged: FIRING };
    checkUsageAlertStates(state, [], new Map([[SERIES, firing]]), epoch);
    const firingOnly = toldEverywhere().filter((i) => !i.key.includes('#resolved#'));
    checkUsageAlertStates(state, firingOnly, new Map([[SERIES, QUIET]]), epoch);
    expect(state.violations.map((v) => v.detail)).toEqual([
      ...epoch.rules[0]!.recipients.map(
        (r) => `${SERIES} stored firing since ${FIRING} (judged to ${FIRING}); ${r}: last claimed nothing`,
      ),
      ...epoch.rules[0]!.recipients.map(
        (r) => `${SERIES} stored quiet (judged to ${QUIET.lastJudged}); ${r}: last claimed firing ${FIRING}`,
      ),
    ]);
    expect(new Set(names(state))).toEqual(new Set(['usage alerts: stored state told']));
  });
});

describe('after the closing run: every judged change told, nothing else', () => {
  const changes = [judged(FIRING, 'firing'), judged(RESOLVED, 'resolved')];
  /** What a correct epoch leaves: the emails in the outbox, the webhook's events posted. */
  function seen(): ChaosState {
    const state = new ChaosState();
    state.emails.set('001.eml', {
      file: '001.eml',
      to: OPS,
      alerts: [],
      usageAlerts: [key(FIRING, 'firing', OPS), key(RESOLVED, 'resolved', OPS)],
    });
    state.channelPosts.set('h', {
      file: `${HOOKS}/001.json`,
      channel: HOOKS,
      kind: 'webhook',
      id: 'msg_1',
      subjects: [`usage.alert#${SERIES}#${FIRING}#firing`, `usage.alert#${SERIES}#${RESOLVED}#resolved`],
      signed: true,
    });
    return state;
  }
  const stored = new Map([[SERIES, QUIET]]);

  it('passes every change recorded for every recipient, and counts them', () => {
    const state = seen();
    const tally = checkUsageAlertsTold(state, toldEverywhere(), stored, changes, epoch);
    expect(state.violations).toEqual([]);
    expect(tally).toEqual({ changes: 2, done: 6, unknown: 0, pending: 0 });
  });

  it('catches a change never told to a recipient, a done email not in the outbox, a done webhook never posted', () => {
    const state = seen();
    state.emails.clear();
    state.channelPosts.clear();
    const ledger = toldEverywhere().filter((i) => i.key !== key(RESOLVED, 'resolved', `channel:${SLACK}`));
    checkUsageAlertsTold(state, ledger, stored, changes, epoch);
    expect(state.violations.map((v) => v.detail)).toEqual([
      `${key(FIRING, 'firing', OPS)}: recorded done, in no email of the outbox`,
      `${key(FIRING, 'firing', `channel:${HOOKS}`)}: recorded done, no event with usage.alert#${SERIES}#${FIRING}#firing posted`,
      `${key(RESOLVED, 'resolved', OPS)}: recorded done, in no email of the outbox`,
      `${key(RESOLVED, 'resolved', `channel:${SLACK}`)}: no ledger record`,
      `${key(RESOLVED, 'resolved', `channel:${HOOKS}`)}: recorded done, no event with usage.alert#${SERIES}#${RESOLVED}#resolved posted`,
    ]);
    expect(new Set(names(state))).toEqual(new Set(['usage alerts: every judged change told or unknown']));
  });

  it('catches a series judged with no state stored, and a record of a change the backtest does not find', () => {
    const unstored = seen();
    checkUsageAlertsTold(unstored, [], new Map(), changes, epoch);
    expect(unstored.violations.map((v) => v.detail)).toEqual([
      `${SERIES}: judged firing ${FIRING}, no state stored after the closing run`,
      `${SERIES}: judged resolved ${RESOLVED}, no state stored after the closing run`,
    ]);
    const state = seen();
    const extra = key('2026-11-20', 'firing', OPS);
    checkUsageAlertsTold(state, [...toldEverywhere(), done(extra)], stored, changes, epoch);
    expect(state.violations).toEqual([
      {
        run: 0,
        invariant: 'usage alerts: nothing told that was not judged',
        detail: `${extra} (done): not a change the backtest finds up to the series' last judged period`,
      },
    ]);
  });
});
