/**
 * An HTTP proxy on 127.0.0.1 in front of s3rver that makes its buckets look versioned to an S3 client, as the
 * archive bucket is in AWS (Object Lock needs versioning) and s3rver is not: every successful object PUT and
 * CompleteMultipartUpload answers a new `x-amz-version-id`; HEAD and GET answer the current version's id; a HEAD or
 * GET naming a version (`?versionId=`) is served if it is the current one (the parameter stripped before s3rver sees
 * it) and answered 404 NoSuchVersion otherwise. Only the current version is kept, which is all s3rver stores: enough
 * for code that reads back the version it was told about (src/archive/copy/archived-check.ts), and it makes the SDK
 * send `GetObject` with `VersionId`, which IAM authorizes as `s3:GetObjectVersion`. Path-style requests only (what the
 * SDK sends to an IP endpoint). s3rver does not check SigV4 signatures, so rewriting the query is harmless.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface VersionedS3Proxy {
  /** `http://127.0.0.1:<port>`: the S3 endpoint to give clients instead of s3rver's. */
  url: string;
  /** The current version id of `bucket/key`, if the proxy has answered one. */
  versionOf(bucket: string, key: string): string | undefined;
  /** Version-naming reads answered 404 NoSuchVersion so far. */
  readonly noSuchVersion: number;
  close(): Promise<void>;
}

/** Query parameters that do not make a PUT or GET anything but a plain object write or read. */
const PLAIN = new Set(['x-id']);

const newVersionId = () => randomBytes(24).toString('base64url');

export async function startVersionedS3Proxy(upstream: string): Promise<VersionedS3Proxy> {
  const target = new URL(upstream);
  const versions = new Map<string, string>();
  let noSuchVersion = 0;
  const sockets = new Set<Socket>();

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    const [bucket, ...keyParts] = url.pathname.slice(1).split('/');
    const key = keyParts.map(decodeURIComponent).join('/');
    const id = `${bucket}/${key}`;
    const params = [...url.searchParams.keys()];
    const isObject = bucket !== undefined && bucket !== '' && key !== '';
    const plain = params.every((p) => PLAIN.has(p));
    const method = req.method ?? 'GET';

    // What the answer means for the key's version, decided by the request.
    let onSuccess: ((headers: Record<string, string>) => void) | undefined;
    if (isObject && method === 'PUT' && plain) {
      onSuccess = (h) => {
        const v = newVersionId();
        versions.set(id, v);
        h['x-amz-version-id'] = v;
      };
    } else if (isObject && method === 'POST' && url.searchParams.has('uploadId')) {
      onSuccess = (h) => {
        const v = newVersionId();
        versions.set(id, v);
        h['x-amz-version-id'] = v;
      };
    } else if (
      isObject &&
      (method === 'GET' || method === 'HEAD') &&
      params.every((p) => PLAIN.has(p) || p === 'versionId')
    ) {
      const asked = url.searchParams.get('versionId');
      if (asked !== null) {
        if (versions.get(id) !== asked) {
          noSuchVersion++;
          answerNoSuchVersion(res, method, key, asked);
          req.resume();
          return;
        }
        url.searchParams.delete('versionId');
      }
      onSuccess = (h) => {
        // An object written past the proxy (a test's own client) gets its version when first read.
        const v = versions.get(id) ?? newVersionId();
        versions.set(id, v);
        h['x-amz-version-id'] = v;
      };
    } else if (isObject && method === 'DELETE' && plain) {
      onSuccess = () => versions.delete(id);
    }

    const headers: IncomingHttpHeaders = { ...req.headers, host: target.host };
    delete headers.expect; // Node already answered 100 Continue to the client
    const forwarded = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method,
        path: `${url.pathname}${url.search}`,
        headers,
      },
      (upstreamRes) => {
        const status = upstreamRes.statusCode ?? 502;
        const out: Record<string, string> = {};
        for (const [name, value] of Object.entries(upstreamRes.headers))
          if (value !== undefined && name !== 'x-amz-version-id')
            out[name] = Array.isArray(value) ? value.join(', ') : value;
        if (status >= 200 && status < 300) onSuccess?.(out);
        res.writeHead(status, out);
        upstreamRes.pipe(res);
      },
    );
    forwarded.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`versioned-s3-proxy: ${e.message}`);
    });
    req.pipe(forwarded);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    versionOf: (bucket, key) => versions.get(`${bucket}/${key}`),
    get noSuchVersion() {
      return noSuchVersion;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function answerNoSuchVersion(res: ServerResponse, method: string, key: string, versionId: string): void {
  const requestId = randomUUID();
  const body =
    method === 'HEAD'
      ? ''
      : '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchVersion</Code>' +
        '<Message>The specified version does not exist.</Message>' +
        `<Key>${escapeXml(key)}</Key><VersionId>${escapeXml(versionId)}</VersionId>` +
        `<RequestId>${requestId}</RequestId></Error>`;
  res.writeHead(404, {
    'content-type': 'application/xml',
    'content-length': String(Buffer.byteLength(body)),
    'x-amz-request-id': requestId,
  });
  res.end(body);
}

const escapeXml = (s: string) =>
  s.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);
