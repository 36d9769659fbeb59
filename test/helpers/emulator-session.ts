/**
 * Test helpers: start an emulator on 127.0.0.1:0 and talk to it over real sockets, keeping the service's cookies
 * the way a browser would. Deliberately independent of Pulse's own client, so emulator tests check the wire.
 */
import { type Emulator, type EmulatorOptions, startEmulator } from '../../emulator/index.ts';

export const TEST_TODAY = '2026-11-20';

export function startTestEmulator(opts: EmulatorOptions = {}): Promise<Emulator> {
  return startEmulator({ clients: 400, seed: 7, today: TEST_TODAY, maxSessionsPerUser: 100, ...opts });
}

export interface WireResponse {
  status: number;
  headers: Headers;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary response shapes and assert on them.
  json: any;
}

export class TestSession {
  readonly cookies = new Map<string, string>();
  readonly emu: Emulator;
  sendCsrfHeader = false;

  constructor(emu: Emulator) {
    this.emu = emu;
  }

  get productId(): string {
    return this.emu.products[0]!.productId;
  }

  private absorb(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      const expired = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a));
      if (expired || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  async call(
    method: string,
    path: string,
    body?: unknown,
    opts: { headers?: Record<string, string>; raw?: string; origin?: string | null } = {},
  ): Promise<WireResponse> {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.origin !== null) headers.Origin = opts.origin ?? this.emu.origin;
    if (this.cookies.size > 0) headers.Cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = this.cookies.get(`${this.emu.headerPrefix}-Csrf`);
    if (this.sendCsrfHeader && csrf) headers[`${this.emu.headerPrefix}-Csrf`] = csrf;
    let payload: string | undefined = opts.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['Content-Type'] ??= 'application/json';
    }
    const res = await fetch(this.emu.baseUrl + path, { method, headers, body: payload ?? null, redirect: 'manual' });
    this.absorb(res.headers);
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, headers: res.headers, text, json };
  }

  async signIn(): Promise<WireResponse> {
    await this.call('GET', '/v3/request-csrf');
    return this.call('POST', '/v3/auth/web', this.emu.credentials);
  }

  /** POST to a product-scoped path, e.g. `post('/v3/reporting/generic/dateRange', body)`. */
  post(pathWithoutProduct: string, body?: unknown, productId = this.productId): Promise<WireResponse> {
    return this.call('POST', `${pathWithoutProduct}/${productId}`, body);
  }

  get(pathWithoutProduct: string, productId = this.productId): Promise<WireResponse> {
    return this.call('GET', `${pathWithoutProduct}/${productId}`);
  }
}

export async function signedIn(emu: Emulator): Promise<TestSession> {
  const s = new TestSession(emu);
  const r = await s.signIn();
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.text}`);
  return s;
}
