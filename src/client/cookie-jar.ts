/**
 * The service's cookies, scoped to exactly one origin (scheme, host and port). Cookies ignore ports by RFC 6265, so
 * a general-purpose jar would hand the session token to another service on the same host; this one refuses any URL
 * that is not the service's origin. Within that origin it follows RFC 6265 section 5 for what the service uses: name
 * and value, Path (with the default-path rule), Max-Age / Expires (including deletion), Secure. A Domain attribute can
 * only widen where a cookie goes, which this jar never does, so cookies are kept host-only. (A small jar instead of
 * tough-cookie: the public-suffix list it bundles would take a fifth of the digest Lambda's size budget.)
 */
interface StoredCookie {
  name: string;
  value: string;
  path: string;
  secure: boolean;
  /** Epoch ms; Infinity for a session cookie. */
  expires: number;
  created: number;
}

/** The directory of the request path (RFC 6265 section 5.1.4). */
function defaultPath(pathname: string): string {
  if (!pathname.startsWith('/')) return '/';
  const slash = pathname.lastIndexOf('/');
  return slash <= 0 ? '/' : pathname.slice(0, slash);
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith('/') || requestPath[cookiePath.length] === '/';
}

/** Parses one Set-Cookie line; undefined when it has no name=value pair (RFC 6265 section 5.2: ignore it). */
export function parseSetCookie(line: string, url: URL, now: number): StoredCookie | undefined {
  const [pair = '', ...attrs] = line.split(';');
  const eq = pair.indexOf('=');
  if (eq < 0) return undefined;
  const name = pair.slice(0, eq).trim();
  if (name === '') return undefined;
  const cookie: StoredCookie = {
    name,
    value: pair.slice(eq + 1).trim(),
    path: defaultPath(url.pathname),
    secure: false,
    expires: Number.POSITIVE_INFINITY,
    created: now,
  };
  let maxAge: number | undefined;
  for (const attr of attrs) {
    const i = attr.indexOf('=');
    const key = (i < 0 ? attr : attr.slice(0, i)).trim().toLowerCase();
    const val = i < 0 ? '' : attr.slice(i + 1).trim();
    if (key === 'path') cookie.path = val.startsWith('/') ? val : defaultPath(url.pathname);
    else if (key === 'secure') cookie.secure = true;
    else if (key === 'max-age' && /^-?\d+$/.test(val)) maxAge = Number(val);
    else if (key === 'expires') {
      const at = Date.parse(val);
      if (!Number.isNaN(at)) cookie.expires = at;
    }
  }
  // Max-Age wins over Expires (RFC 6265 section 5.3, step 3); zero or negative means "delete now".
  if (maxAge !== undefined) cookie.expires = maxAge <= 0 ? Number.NEGATIVE_INFINITY : now + maxAge * 1000;
  return cookie;
}

/** Browsers treat loopback as a secure context; so does this jar (the emulator is plain http on 127.0.0.1). */
const secureContext = (url: URL) =>
  url.protocol === 'https:' || url.hostname === 'localhost' || url.hostname === '127.0.0.1' || url.hostname === '[::1]';

export class ServiceCookieJar {
  private cookies = new Map<string, StoredCookie>();
  private readonly origin: string;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(serviceOrigin: string, headerPrefix: string, now: () => number = Date.now) {
    this.origin = serviceOrigin;
    this.prefix = headerPrefix;
    this.now = now;
  }

  private own(url: URL): boolean {
    return url.origin === this.origin;
  }

  private live(url: URL): StoredCookie[] {
    const now = this.now();
    const out: StoredCookie[] = [];
    for (const [key, c] of this.cookies) {
      if (c.expires <= now) this.cookies.delete(key);
      else if (pathMatches(url.pathname, c.path) && (!c.secure || secureContext(url))) out.push(c);
    }
    // RFC 6265 section 5.4: longer paths first, then older cookies first.
    return out.sort((a, b) => b.path.length - a.path.length || a.created - b.created);
  }

  /** The Cookie header for a request to `url`, or undefined (always undefined for another origin). */
  async header(url: string): Promise<string | undefined> {
    const u = new URL(url);
    if (!this.own(u)) return undefined;
    const value = this.live(u)
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    return value === '' ? undefined : value;
  }

  /** Stores the Set-Cookie headers of a response from `url`; answers from other origins are ignored. */
  async store(url: string, setCookies: readonly string[]): Promise<void> {
    const u = new URL(url);
    if (!this.own(u)) return;
    for (const line of setCookies) {
      const c = parseSetCookie(line, u, this.now());
      if (!c || (c.secure && !secureContext(u))) continue;
      const key = `${c.name}\u0000${c.path}`;
      const old = this.cookies.get(key);
      if (old) c.created = old.created;
      if (c.expires <= this.now()) this.cookies.delete(key);
      else this.cookies.set(key, c);
    }
  }

  async value(name: 'Csrf' | 'Session-Token'): Promise<string | undefined> {
    return this.live(new URL(`${this.origin}/`)).find((c) => c.name === `${this.prefix}-${name}`)?.value;
  }

  async clear(): Promise<void> {
    this.cookies.clear();
  }
}
