/**
 * ZIP files made by Python's zipfile, so the verifier is judged on bytes another implementation wrote: deflated and
 * stored entries, and (`streaming`) an archive written to a non-seekable stream, where zipfile sets flag bit 3 and
 * writes data descriptors after each entry.
 */
import { execFileSync } from 'node:child_process';

export interface PythonZipEntry {
  name: string;
  method: 'deflated' | 'stored';
  /** Text content, repeated `repeat` times (compresses well)… */
  text?: string;
  repeat?: number;
  /** …or this many pseudo-random bytes from `seed` (does not compress). */
  randomBytes?: number;
  seed?: number;
  /** Write the entry with Zip64 extensions. */
  zip64?: boolean;
}

export interface PythonZipSpec {
  entries: PythonZipEntry[];
  /** Write to a non-seekable stream: data descriptors, sizes unknown in the local headers. */
  streaming?: boolean;
  comment?: string;
}

const MAKE = String.raw`
import base64, io, json, random, sys, zipfile
class Unseekable:
    def __init__(self): self.buf = bytearray()
    def write(self, b): self.buf += b; return len(b)
    def flush(self): pass
def make(spec):
    out = Unseekable() if spec.get('streaming') else io.BytesIO()
    with zipfile.ZipFile(out, 'w') as z:
        for e in spec['entries']:
            data = random.Random(e.get('seed', 1)).randbytes(e['randomBytes']) if 'randomBytes' in e \
                else (e.get('text', '') * e.get('repeat', 1)).encode('utf-8')
            info = zipfile.ZipInfo(e['name'], date_time=(2026, 11, 19, 12, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED if e['method'] == 'deflated' else zipfile.ZIP_STORED
            with z.open(info, 'w', force_zip64=e.get('zip64', False)) as w:
                for i in range(0, len(data), 65536): w.write(data[i:i + 65536])
        if 'comment' in spec: z.comment = spec['comment'].encode('utf-8')
    return bytes(out.buf) if isinstance(out, Unseekable) else out.getvalue()
print(json.dumps([base64.b64encode(make(spec)).decode('ascii') for spec in json.load(sys.stdin)]))
`;

/** The archives of `specs`, made in one Python process. */
export function pythonZips(specs: PythonZipSpec[]): Buffer[] {
  const out = execFileSync('python3', ['-c', MAKE], { input: JSON.stringify(specs), maxBuffer: 256 * 1024 * 1024 });
  return (JSON.parse(out.toString()) as string[]).map((b64) => Buffer.from(b64, 'base64'));
}

export const pythonZip = (spec: PythonZipSpec): Buffer => pythonZips([spec])[0]!;

export interface PythonZipInfo {
  entries: { name: string; size: number; crc32: number }[];
}

/** What Python's zipfile reads back from each archive (names, sizes, CRCs; testzip must pass). */
export function pythonZipInfos(zips: Uint8Array[]): PythonZipInfo[] {
  const READ = `
import base64, io, json, sys, zipfile
def info(b64):
    z = zipfile.ZipFile(io.BytesIO(base64.b64decode(b64)))
    assert z.testzip() is None
    return {'entries': [{'name': i.filename, 'size': i.file_size, 'crc32': i.CRC} for i in z.infolist()]}
print(json.dumps([info(b64) for b64 in json.load(sys.stdin)]))
`;
  const input = JSON.stringify(zips.map((z) => Buffer.from(z).toString('base64')));
  return JSON.parse(execFileSync('python3', ['-c', READ], { input, maxBuffer: 256 * 1024 * 1024 }).toString());
}
