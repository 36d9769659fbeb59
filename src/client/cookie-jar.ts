/**
 * The service's cookies (tough-cookie), scoped to exactly one origin. Cookies ignore ports by RFC 6265, so a plain
 * jar would hand the session token to another service on the same host; this jar refuses any URL whose origin
 * (scheme, host and port) is not the service's.
 */
import { CookieJar } from 'tough-cookie';

export class ServiceCookieJar {
  private jar = new CookieJar(undefined, { looseMode: true });
  private readonly origin: string;
  private readonly prefix: string;

  constructor(serviceOrigin: string, headerPrefix: string) {
    this.origin = serviceOrigin;
    this.prefix = headerPrefix;
  }

  private own(url: string): boolean {
    return new URL(url).origin === this.origin;
  }

  /** The Cookie header for a request to `url`, or undefined (always undefined for another origin). */
  async header(url: string): Promise<string | undefined> {
    if (!this.own(url)) return undefined;
    const value = await this.jar.getCookieString(url);
    return value === '' ? undefined : value;
  }

  /** Stores the Set-Cookie headers of a response from `url`; answers from other origins are ignored. */
  async store(url: string, setCookies: readonly string[]): Promise<void> {
    if (!this.own(url)) return;
    for (const c of setCookies) await this.jar.setCookie(c, url, { ignoreError: true });
  }

  async value(name: 'Csrf' | 'Session-Token'): Promise<string | undefined> {
    const cookies = await this.jar.getCookies(this.origin);
    return cookies.find((c) => c.key === `${this.prefix}-${name}`)?.value;
  }

  async clear(): Promise<void> {
    await this.jar.removeAllCookies();
  }
}
