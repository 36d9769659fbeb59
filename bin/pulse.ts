#!/usr/bin/env node
// The `pulse` command. Entry point only: everything it does lives in src/cli.
import { main } from '../src/cli/main.ts';

process.exitCode = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
