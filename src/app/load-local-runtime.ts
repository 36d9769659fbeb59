/**
 * The local runtime, loaded only when a command runs with `--local`. Its peers (dynalite, s3rver, smtp-server,
 * mailparser) are devDependencies, absent from a production install (`npm ci --omit=dev`), so no static import
 * from bin/pulse.ts may reach them (test/cli/production-install.test.ts walks the import graph); without them
 * `--local` fails with LocalPeersMissingError, which says what to install.
 */
type LocalRuntimeModule = typeof import('./local-runtime.ts');

/** The packages only the local peers use: devDependencies. */
export const LOCAL_PEER_PACKAGES = [
  'dynalite',
  's3rver',
  'smtp-server',
  'mailparser',
  'standardwebhooks',
  'adaptivecards',
] as const;

export class LocalPeersMissingError extends Error {
  override name = 'LocalPeersMissingError';
}

/**
 * `import('./local-runtime.ts')` (or another module that needs the local peers, e.g. the console), with a missing
 * local peer package turned into LocalPeersMissingError.
 */
export async function loadLocalRuntime<M = LocalRuntimeModule>(
  load: () => Promise<M> = () => import('./local-runtime.ts') as Promise<M>,
): Promise<M> {
  try {
    return await load();
  } catch (e) {
    const missing = missingPeerPackage(e);
    if (missing === undefined) throw e;
    throw new LocalPeersMissingError(
      `the local peers need the dev dependencies: run \`npm ci\` (not --omit=dev); ${missing} is not installed`,
      { cause: e },
    );
  }
}

/** The local peer package an import failed to find (Node: "Cannot find package 'x' imported from …"). */
function missingPeerPackage(e: unknown): string | undefined {
  if ((e as NodeJS.ErrnoException | undefined)?.code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const name = /Cannot find (?:package|module) '([^']+)'/.exec((e as Error).message)?.[1];
  return LOCAL_PEER_PACKAGES.find((p) => name === p || name?.startsWith(`${p}/`));
}
