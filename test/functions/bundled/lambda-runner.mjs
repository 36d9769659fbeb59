// One Lambda container, as the Node.js runtime runs a function: imports the asset's index.mjs once (its module scope
// is the container's), then calls `handler(event, context)` for each event in turn, with a context like Lambda's.
// Usage: node lambda-runner.mjs <assetDir> <events.json> <results.json> <timeoutSeconds>
// Writes one entry per event to results.json: { result } or { errorType, errorMessage } (as Lambda reports a throw).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { lambdaContext } from '../../helpers/lambda-context.ts';

const [assetDir, eventsFile, resultsFile, timeoutSeconds] = process.argv.slice(2);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const { handler } = await import(pathToFileURL(join(assetDir, 'index.mjs')).href);
const results = [];
for (const event of events) {
  const context = lambdaContext(Number(timeoutSeconds), 'local');
  try {
    results.push({ result: (await handler(event, context)) ?? null });
  } catch (e) {
    results.push({ errorType: e?.name ?? 'Error', errorMessage: e?.message ?? String(e) });
  }
}
writeFileSync(resultsFile, JSON.stringify(results));
// Lambda freezes the container after the last response; open sockets (a warm session, a mail pool) do not keep it.
process.exit(0);
