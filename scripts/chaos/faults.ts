/**
 * Chaos fault profiles: each run draws a few fault kinds from the run's seeded stream and turns them into an emulator
 * fault profile (emulator/faults.ts, the same file `--faults` reads), so the same seed draws the same profiles and
 * the emulator, seeded from the profile, replays the same faults for the same request sequence.
 */

import type { Rng } from '../../emulator/data/rng.ts';
import type { FaultProfile, FaultRule } from '../../emulator/faults.ts';
import { PEER_FAULT_KINDS, type PeerFaultKind, type PeerFaults } from './peer-faults.ts';

/** The kinds of the emulator's profile. */
export const SERVICE_FAULT_KINDS = [
  'serverError',
  'rateLimit',
  'timeout',
  'cookieMissing',
  'sessionExpiry',
  'truncatedDownload',
  'stalledDownload',
  'corruptDownload',
  'slowDownload',
  'expiredDownload',
  'latency',
] as const;
type ServiceFaultKind = (typeof SERVICE_FAULT_KINDS)[number];
/** Every kind a run can draw (the report counts runs per kind): the emulator's and the peers' (peer-faults.ts). */
// Not `s3Part` / `s3Complete`: the chaos data set's files are all smaller than one multipart part, so they never fire.
const DRAWN_PEER_KINDS = PEER_FAULT_KINDS.filter((k) => k !== 's3Part' && k !== 's3Complete');
export const FAULT_KINDS = [...SERVICE_FAULT_KINDS, ...DRAWN_PEER_KINDS] as const;
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

export interface DrawnFaults {
  kinds: FaultKind[];
  /** The emulator's profile (`--faults`). */
  profile: FaultProfile;
  /** The peers' faults ($PULSE_CHAOS_PEER_FAULTS), when any. */
  peer?: PeerFaults;
}

const isPeer = (k: FaultKind): k is FaultKind & PeerFaultKind => (PEER_FAULT_KINDS as readonly string[]).includes(k);

/** One to three distinct kinds (none with probability `cleanShare`). */
export function drawFaults(rng: Rng, cleanShare = 0.1): DrawnFaults {
  const seed = rng.int(1, 2 ** 31 - 1);
  if (rng.chance(cleanShare)) return { kinds: [], profile: { seed, rules: [] } };
  const count = rng.int(1, 3);
  const kinds = new Set<FaultKind>();
  while (kinds.size < count) kinds.add(rng.pick(FAULT_KINDS));
  const sorted = FAULT_KINDS.filter((k) => kinds.has(k));
  const service = sorted.filter((k): k is ServiceFaultKind => !isPeer(k));
  const peer = sorted.filter(isPeer);
  return {
    kinds: sorted,
    profile: { seed, rules: service.map((k) => rule(k, rng)) },
    ...(peer.length > 0
      ? { peer: { seed: seed ^ 0x5eed, rules: Object.fromEntries(peer.map((k) => [k, peerRule(k, rng)])) } }
      : {}),
  };
}
