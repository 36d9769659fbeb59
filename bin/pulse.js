#!/usr/bin/env node
// The `pulse` command as npm links it (package.json "bin"). Plain JavaScript, so that any Node runs these lines:
// Pulse is TypeScript run by Node 24's type stripping, and an older Node (a system's Node 20, outside npm) would
// stop at bin/pulse.ts with a stack trace. Here it stops with one line saying what to run instead, exit 2
// (nothing was started); on Node 24 it runs bin/pulse.ts.
import { existsSync, readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
// The Node the project brings (its `node` devDependency, listed in package.json even in a production install). No
// `engines` field: npm would warn about it on every `npx pulse` and `npm start` under a system Node 20, although
// those run the project's Node 24; this check speaks only when the Node really is too old.
const needed = Number(/\d+/.exec(pkg.devDependencies.node)[0]);
const running = process.versions.node;

if (Number(running.split('.')[0]) < needed) {
  // A clone's dev dependencies bring Node 24 (the `node` package), first on the PATH of npm scripts and npx; a
  // production install (--omit=dev) has none of its own.
  const projectNode = existsSync(new URL('../node_modules/node/package.json', import.meta.url));
  const todo = projectNode
    ? `run it through npm (\`npx pulse\`, \`npm start\`), which uses the project's Node ${needed}`
    : `install Node ${needed} (a production install brings none of its own)`;
  process.stderr.write(`Pulse needs Node ${needed} (this is Node ${running}): ${todo}\n`);
  process.exitCode = 2;
} else {
  await import('./pulse.ts');
}
