/**
 * setupFiles of the e2e project: before a file's tests, waits for the web build that the globalSetup
 * (setup-web.ts) runs in the background, so that its host serves the current renderer; throws the
 * build's error when it failed.
 */
import { inject } from 'vitest';
import { webBuilt } from './setup-web';

await webBuilt(inject('webBuild'));
