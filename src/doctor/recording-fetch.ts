/**
 * The `fetch` of `pulse doctor --contract`'s client: passes every request through and keeps what the service answered
 * (method, path, status, body as text) for the contract check to judge, since the client's own validation stops at the
 * first mismatch and keeps no body. It keeps no request header, so no cookie or CSRF value; the values the service
 * sets as cookies are collected only so that the output can be checked never to hold them (SecretValues).
 */
import type { FetchLike } from '../client/index.ts';

export interface RecordedAnswer {
  method: string;
  /** The request path, e.g. `/v3/reporting/generic/dateRange/12345678901`. */
  path: string;
  status: number;
  contentType: string | undefined;
  /** The body as text (at most MAX_KEPT_BYTES; `truncated` then). */
  text: string;
  truncated: boolean;
}

/** A cheap request's answer is small; a service that sends more is cut here rather than filling memory. */
const MAX_KEPT_BYTES = 4 * 1024 * 1024;

/** Values never to print: cookie values the service set, the password the client signed in with. */
export class SecretValues {
  private readonly values = new Set<string>();

  add(value: string | undefined): void {
    if (value !== undefined && value.length >= 4) this.values.add(value);
  }

  /** `text` with every known secret value (raw and JSON-escaped) replaced by `***`. */
  mask(text: string): string {
    let out = text;
    for (const v of this.values)
      for (const form of [v, JSON.stringify(v).slice(1, -1), encodeURIComponent(v)]) out = out.split(form).join('***');
    return out;
  }
}

export class RecordingFetch {
  readonly answers: RecordedAnswer[] = [];
  readonly secrets = new SecretValues();

  private readonly base: FetchLike;

  constructor(base: FetchLike = (input, init) => fetch(input, init)) {
    this.base = base;
  }

  readonly fetch: FetchLike = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    const { pathname } = new URL(request.url);
    const res = await this.base(input, init);
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      this.secrets.add(pair.slice(pair.indexOf('=') + 1).trim());
    }
    const { text, truncated } = await readCapped(res.clone());
    this.answers.push({
      method: request.method,
      path: pathname,
      status: res.status,
      contentType: res.headers.get('content-type') ?? undefined,
      text,
      truncated,
    });
    return res;
  };

  /** The answers recorded from index `from` on. */
  since(from: number): RecordedAnswer[] {
    return this.answers.slice(from);
  }
}

async function readCapped(res: Response): Promise<{ text: string; truncated: boolean }> {
  if (!res.body) return { text: '', truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
      if (size > MAX_KEPT_BYTES) {
        await reader.cancel();
        return { text: Buffer.concat(chunks).toString('utf8').slice(0, MAX_KEPT_BYTES), truncated: true };
      }
    }
  } catch {
    // The client reads its own copy and reports the failure; the check judges what arrived.
  }
  return { text: Buffer.concat(chunks).toString('utf8'), truncated: false };
}
