#!/usr/bin/env node
// `packbench` command line. Runs the TypeScript sources through tsx so that a fresh clone works
// without a build step.
import { register } from 'tsx/esm/api';

register();
// A reader that closes early (`packbench runs list | head -1`) ends the output, not the command:
// without a listener the EPIPE of the next write crashed the process with a stack trace and exit 1.
process.stdout.on('error', (err) => {
  if (err.code !== 'EPIPE' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
});
const { main } = await import('../main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
