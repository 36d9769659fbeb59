/**
 * A preload (`node --import`) that makes the local peers' packages unresolvable, as in a production install
 * (`npm ci --omit=dev`): any import of them fails the way Node fails for a package that is not installed.
 */
import { registerHooks } from 'node:module';
import { LOCAL_PEER_PACKAGES } from '../../src/app/load-local-runtime.ts';

const hidden = (specifier: string) => LOCAL_PEER_PACKAGES.some((p) => specifier === p || specifier.startsWith(`${p}/`));

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (hidden(specifier))
      throw Object.assign(new Error(`Cannot find package '${specifier}' imported from ${context.parentURL}`), {
        code: 'ERR_MODULE_NOT_FOUND',
      });
    return nextResolve(specifier, context);
  },
});
