/**
 * A preload (`node --import`) that makes every devDependency unresolvable, as in a production install
 * (`npm ci --omit=dev`): the local peers, mjml, esbuild and the rest fail to import the way Node fails for a package
 * that is not installed.
 */
import { readFileSync } from 'node:fs';
import { registerHooks } from 'node:module';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  devDependencies: Record<string, string>;
};
const DEV = Object.keys(pkg.devDependencies);

const hidden = (specifier: string) => DEV.some((p) => specifier === p || specifier.startsWith(`${p}/`));

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (hidden(specifier))
      throw Object.assign(new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    return nextResolve(specifier, context);
  },
});
