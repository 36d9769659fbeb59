/** Cookie header parsing and Set-Cookie serialization for the service's `<prefix>-` cookies. */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (name && !out.has(name)) out.set(name, value);
  }
  return out;
}

export interface CookieAttributes {
  secure: boolean;
  httpOnly?: boolean;
  maxAge?: number;
}

export function serializeCookie(name: string, value: string, attrs: CookieAttributes): string {
  let s = `${name}=${value}; Path=/`;
  if (attrs.maxAge !== undefined) s += `; Max-Age=${attrs.maxAge}`;
  // SameSite=None requires Secure in browsers; over plain http://localhost the emulator drops both
  // (docs/interface.md "Sessions").
  if (attrs.secure) s += '; Secure; SameSite=None';
  else s += '; SameSite=Lax';
  if (attrs.httpOnly) s += '; HttpOnly';
  return s;
}
