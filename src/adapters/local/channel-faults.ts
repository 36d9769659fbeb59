/**
 * What the local channel sinks (channel-sink.ts) do instead of answering normally, so tests and the chaos runner can
 * meet every way Slack, Teams and a webhook receiver fail: a per-channel script of faults consumed in order, and an
 * optional random profile. The random one draws from (seed, channel id, n-th post on that channel) rather than from
 * one shared stream, so the same seed gives each channel the same faults however concurrent posts interleave.
 *
 * `timeout` and `drop` are the dangerous ones: the receiver has taken the message (it counts as delivered) and the
 * sender never learns it; at-most-once chat channels must then call the outcome unknown, at-least-once webhooks
 * send it again under the same id.
 */
import type { ChannelKind } from '../../ports/channels.ts';

export type ChannelFault =
  /** 429 with Retry-After; nothing posted. */
  | { kind: 'rateLimit'; retryAfterSeconds: number }
  /** A 5xx; nothing posted. */
  | { kind: 'serverError'; status: number }
  /** A 4xx the service gives for good (404 channel_not_found, 410 channel_is_archived, 403 action_prohibited). */
  | { kind: 'refuse'; status: number; body: string }
  /** Read and delivered, never answered: the connection stays open until the client gives up or the sink closes. */
  | { kind: 'timeout' }
  /** Read and delivered, then the socket is destroyed without an answer. */
  | { kind: 'drop' };

export type ChannelFaultKind = ChannelFault['kind'];

export interface ChannelFaultProfile {
  seed: number;
  /** The share of posts that meet a fault, 0 to 1. */
  rate: number;
  /** What to pick from, evenly: a fault as given, or a kind with its usual parameters (`defaultFault`). */
  kinds: readonly (ChannelFault | ChannelFaultKind)[];
}

/** What a test or the chaos runner controls (`sink.faults`). */
export interface ChannelFaultControl {
  /** Appends faults for the next posts to `channelId`, consumed one per post, before any random one. */
  script(channelId: string, faults: readonly ChannelFault[]): void;
  /** Turns the random profile on (or off with undefined). */
  random(profile: ChannelFaultProfile | undefined): void;
  /** Scripted faults not consumed yet. */
  pending(channelId: string): number;
  /** Forgets every script and the random profile. */
  clear(): void;
}

/** A fault kind with the parameters each service would give it (the refusal a channel of `channelKind` sends). */
export function defaultFault(kind: ChannelFaultKind, channelKind: ChannelKind): ChannelFault {
  switch (kind) {
    case 'rateLimit':
      return { kind, retryAfterSeconds: 1 };
    case 'serverError':
      return { kind, status: 503 };
    case 'refuse':
      if (channelKind === 'slack') return { kind, status: 404, body: 'channel_not_found' };
      if (channelKind === 'teams') {
        return { kind, status: 404, body: JSON.stringify({ error: { code: 'WorkflowNotFound', message: 'gone' } }) };
      }
      return { kind, status: 410, body: '' };
    case 'timeout':
    case 'drop':
      return { kind };
  }
}

/** mulberry32: a small, fast, well-distributed 32-bit PRNG; numbers in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a: turns (seed, channel, n) into the 32-bit seed of that post's draws. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function checkProfile(profile: ChannelFaultProfile): void {
  if (!(profile.rate >= 0 && profile.rate <= 1)) throw new RangeError(`fault rate ${profile.rate} is not within 0..1`);
  if (profile.rate > 0 && profile.kinds.length === 0) throw new RangeError('a fault rate above 0 needs fault kinds');
}

export class ChannelFaults implements ChannelFaultControl {
  readonly #scripts = new Map<string, ChannelFault[]>();
  /** Posts each channel has had a random draw for: the n of the next draw. */
  readonly #draws = new Map<string, number>();
  #profile: ChannelFaultProfile | undefined;

  constructor(profile?: ChannelFaultProfile) {
    this.random(profile);
  }

  script(channelId: string, faults: readonly ChannelFault[]): void {
    this.#scripts.set(channelId, [...(this.#scripts.get(channelId) ?? []), ...faults]);
  }

  random(profile: ChannelFaultProfile | undefined): void {
    if (profile) checkProfile(profile);
    this.#profile = profile;
    this.#draws.clear();
  }

  pending(channelId: string): number {
    return this.#scripts.get(channelId)?.length ?? 0;
  }

  clear(): void {
    this.#scripts.clear();
    this.random(undefined);
  }

  /** The fault the next post to `channelId` meets, if any (consumes it). */
  next(channelId: string, channelKind: ChannelKind): ChannelFault | undefined {
    const scripted = this.#scripts.get(channelId)?.shift();
    if (scripted) return scripted;
    const profile = this.#profile;
    if (!profile || profile.rate === 0) return undefined;
    const n = this.#draws.get(channelId) ?? 0;
    this.#draws.set(channelId, n + 1);
    const draw = mulberry32(hash32(`${profile.seed}\u0000${channelId}\u0000${n}`));
    if (draw() >= profile.rate) return undefined;
    const picked = profile.kinds[Math.floor(draw() * profile.kinds.length)]!;
    return typeof picked === 'string' ? defaultFault(picked, channelKind) : picked;
  }
}
