#!/usr/bin/env node
// `packbench` command line. Runs the TypeScript sources through tsx so that a fresh clone works
// without a build step.
import { register } from 'tsx/esm/api';

register();
// A reader that closes early (`packbench runs list | head -1`) ends the output, not the command:
// without a listener the EPIPE of the next write crashed the process with a stack trace and exit 1.
// So does a terminal closed under the command (EIO): its SIGHUP is taken as Ctrl-C, and the command
// cancelling its runs crashed at its next line of progress, leaving them to the app.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code !== 'EPIPE' && err.code !== 'EIO' && err.code !== 'ERR_STREAM_DESTROYED') throw err;
  });
}
const { main } = await import('../main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
