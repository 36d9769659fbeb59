/**
 * Whether a URL's host names this machine's loopback interface: 127.0.0.0/8, ::1 (also IPv4-mapped), localhost.
 * The one place plain http is allowed to (nobody can listen in): the client's downloads (http-get.ts) and the
 * channel posts (src/adapters/channel-endpoint.ts).
 */
import net from 'node:net';

/** `hostname` as `URL.hostname` gives it (IPv6 in brackets) or bare. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  return (
    host === 'localhost' ||
    host === '::1' ||
    (net.isIPv4(host) && host.startsWith('127.')) ||
    /^::ffff:127\./.test(host) ||
    /^::ffff:7f[0-9a-f]{2}:/.test(host)
  );
}
