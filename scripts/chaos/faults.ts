/**
 * Chaos fault profiles: each run draws a few fault kinds from the run's seeded stream and turns them into an emulator
 * fault profile (emulator/faults.ts, the same file `--faults` reads), so the same seed draws the same profiles and
 * the emulator, seeded from the profile, replays the same faults for the same request sequence. The peers' kinds
 * become $PULSE_CHAOS_PEER_FAULTS (peer-faults.ts) and the channel kinds the local channel sink's random profile
 * ($PULSE_LOCAL_CHANNEL_FAULTS, src/adapters/local/channel-faults.ts), seeded from the same draw.
 */

import type { Rng } from '../../emulator/data/rng.ts';
import type { FaultProfile, FaultRule } from '../../emulator/faults.ts';
import type { ChannelFaultProfile } from '../../src/adapters/local/channel-faults.ts';
import {
  CHANNEL_FAULT_KINDS,
  CHANNEL_FAULTS,
  type ChannelChaosKind,
  PEER_FAULT_KINDS,
  type PeerFaultKind,
  type PeerFaults,
} from './peer-faults.ts';

/** The kinds of the emulator's profile. */
export const SERVICE_FAULT_KINDS = [
  'serverError',
  'rateLimit',
  'timeout',
  'cookieMissing',
  'sessionExpiry',
  'sessionLimit',
  'truncatedDownload',
  'stalledDownload',
  'corruptDownload',
  'slowDownload',
  'expiredDownload',
  'latency',
] as const;
type ServiceFaultKind = (typeof SERVICE_FAULT_KINDS)[number];
/** Every kind a run can draw (the report counts runs per kind): the emulator's, the peers' and the channel sink's. */
export const FAULT_KINDS = [...SERVICE_FAULT_KINDS, ...PEER_FAULT_KINDS, ...CHANNEL_FAULT_KINDS] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

/** Storage keys of the export files (custom events, exceptions, raw events). */
const DOWNLOADS = '_(cust|exc|raw)_';

const rate = (rng: Rng, lo: number, hi: number) => Math.round((lo + rng.next() * (hi - lo)) * 1000) / 1000;

function rule(kind: ServiceFaultKind, rng: Rng): FaultRule {
  // Most faults start after a random number of matching requests: in the middle of a run, not only at its start.
  const after = rng.chance(0.5) ? { after: rng.int(1, 200) } : {};
  switch (kind) {
    case 'serverError':
      return {
        path: '^/v3/',
        serverErrorRate: rate(rng, 0.02, 0.15),
        serverErrorStatus: rng.pick([500, 502, 503, 504]),
        nonJsonBody: rng.chance(0.5),
        ...after,
      };
    case 'rateLimit':
      return { rateLimitRate: rate(rng, 0.02, 0.1), retryAfterSeconds: 1, ...after };
    case 'timeout':
      // Longer than the chaos config's service.timeoutMs (config.ts): the client times out and retries.
      return { latencyMs: 2500, times: rng.int(1, 2), operations: [rng.pick(TIMEOUT_OPERATIONS)], ...after };
    case 'cookieMissing':
      return { cookieMissingRate: rate(rng, 0.02, 0.1), ...after };
    case 'sessionExpiry':
      return { sessionExpiresAfterRequests: rng.int(5, 80) };
    case 'sessionLimit':
      // Another tool holds every session the user may have (the emulator's maximum, 5): from the start, so the run
      // cannot sign in at all; or mid-run, when the run's session expires and its sign-in again is refused.
      return rng.chance(0.5)
        ? { heldSessions: 5 }
        : { heldSessions: 5, after: rng.int(1, 200), sessionExpiresAfterRequests: rng.int(5, 80) };
    case 'truncatedDownload':
      return { path: DOWNLOADS, truncateDownloadRate: rate(rng, 0.05, 0.3), ...after };
    case 'stalledDownload':
      // Once: the archive waits 30 s for a stalled body before it retries.
      return { path: DOWNLOADS, stallDownloadRate: rate(rng, 0.05, 0.2), times: 1, ...after };
    case 'corruptDownload':
      return { path: DOWNLOADS, corruptDownloadRate: rate(rng, 0.05, 0.3), ...after };
    case 'slowDownload':
      return { path: DOWNLOADS, downloadBytesPerSecond: rng.int(100, 1000) * 1024 };
    case 'expiredDownload':
      return { path: DOWNLOADS, expiredDownloadRate: rate(rng, 0.05, 0.3), ...after };
    case 'latency':
      return { latencyMs: rng.int(0, 30), jitterMs: rng.int(0, 30) };
  }
}

/** Operations a run calls a few times, whose time-out the client retries. */
const TIMEOUT_OPERATIONS = [
  'dateRangeReport',
  'customEventsListFiles',
  'exceptionsListFiles',
  'customEventsDownloadUrl',
  'exceptionsDownloadUrl',
  'rawEventsDownloadUrl',
  'searchLicenseKeys',
];

/** How often a peer fault fires: a share of the matching calls, a few times per run at most. */
function peerRule(kind: PeerFaultKind, rng: Rng): { rate: number; times: number } {
  if (kind.startsWith('smtp')) return { rate: rate(rng, 0.2, 0.6), times: 1 };
  return { rate: rate(rng, 0.02, 0.15), times: rng.int(1, 3) };
}

/**
 * The local archive's part size in runs that upload in parts ($PULSE_LOCAL_S3_PART_SIZE): the chaos data set's export
 * files are 1–50 KiB, far below the default 8 MiB part, so this sends most of them through the multipart upload.
 */
export const MULTIPART_PART_SIZE = 8 * 1024;

const UPLOAD = ['s3Put', 's3Part', 's3Complete'] as const satisfies readonly FaultKind[];
const DELIVERY = ['dynamoComplete', 'smtp4xx', 'smtp5xx', 'smtpDrop'] as const satisfies readonly FaultKind[];

/**
 * The faults that fire only where a run does work: an upload, a send and its record, a channel post. Only the first
 * runs of each job in an epoch do much of it (the later ones find the files archived, the emails sent, the messages
 * posted), so those runs draw one kind of each group that fits their job (scripts/chaos.ts); drawn at random they
 * would mostly hit runs with nothing to upload, send or post.
 */
export const WORK_FAULTS = {
  start: [[...UPLOAD, ...DELIVERY], CHANNEL_FAULT_KINDS],
  digest: [[...UPLOAD, ...DELIVERY], CHANNEL_FAULT_KINDS], // the digest archives its record (raw-responses.json)
  archive: [UPLOAD],
  licenses: [DELIVERY, CHANNEL_FAULT_KINDS],
  report: [[...UPLOAD, ...DELIVERY], CHANNEL_FAULT_KINDS], // the report writes its registry snapshots to the archive
  // A claim's failure too: a change whose claim failed holds its series' later changes back (tell-changes.ts).
  'usage-alerts': [[...DELIVERY, 'dynamoClaim'], CHANNEL_FAULT_KINDS],
} as const satisfies Record<string, readonly (readonly FaultKind[])[]>;

export interface DrawnFaults {
  kinds: FaultKind[];
  /** The archive uploads in parts of MULTIPART_PART_SIZE (always when a part or completion fault is drawn). */
  multipart: boolean;
  /** The emulator's profile (`--faults`). */
  profile: FaultProfile;
  /** The peers' faults ($PULSE_CHAOS_PEER_FAULTS), when any. */
  peer?: PeerFaults;
  /** The channel sink's random fault profile ($PULSE_LOCAL_CHANNEL_FAULTS), when any. */
  channel?: ChannelFaultProfile;
}

const isPeer = (k: FaultKind): k is FaultKind & PeerFaultKind => (PEER_FAULT_KINDS as readonly string[]).includes(k);
const isChannel = (k: FaultKind): k is ChannelChaosKind => (CHANNEL_FAULT_KINDS as readonly string[]).includes(k);

/**
 * One to three distinct kinds (none with probability `cleanShare`); with `oneOf`, one kind of each of its groups is
 * among them.
 */
export function drawFaults(rng: Rng, cleanShare = 0.1, oneOf: readonly (readonly FaultKind[])[] = []): DrawnFaults {
  const seed = rng.int(1, 2 ** 31 - 1);
  const multipart = rng.chance(0.5);
  if (oneOf.length === 0 && rng.chance(cleanShare)) return { kinds: [], multipart, profile: { seed, rules: [] } };
  const count = rng.int(1, 3);
  const kinds = new Set<FaultKind>(oneOf.map((group) => rng.pick(group)));
  while (kinds.size < count) kinds.add(rng.pick(FAULT_KINDS));
  const sorted = FAULT_KINDS.filter((k) => kinds.has(k));
  const service = sorted.filter((k): k is ServiceFaultKind => !isPeer(k) && !isChannel(k));
  const peer = sorted.filter(isPeer);
  const channel = sorted.filter(isChannel);
  return {
    kinds: sorted,
    multipart: multipart || kinds.has('s3Part') || kinds.has('s3Complete'),
    profile: { seed, rules: service.map((k) => rule(k, rng)) },
    ...(peer.length > 0
      ? { peer: { seed: seed ^ 0x5eed, rules: Object.fromEntries(peer.map((k) => [k, peerRule(k, rng)])) } }
      : {}),
    // A share of every channel's posts, each meeting one of the drawn kinds: a run posts a few messages per channel
    // (digest, alerts, report, notices), so this fires in most runs that post at all.
    ...(channel.length > 0
      ? { channel: { seed: seed ^ 0xc4a7, rate: rate(rng, 0.3, 0.6), kinds: channel.map((k) => CHANNEL_FAULTS[k]) } }
      : {}),
  };
}
