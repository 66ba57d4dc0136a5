#!/usr/bin/env node
// `packbench` command line. Runs the TypeScript sources through tsx so that a fresh clone works
// without a build step.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../main/cli.ts');
process.exitCode = await main(process.argv.slice(2));
