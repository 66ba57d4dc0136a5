/** A running run seen while it runs: `runs show` prints progress, phase, elapsed time and the time left. */
import { afterEach, describe, expect, it } from 'vitest';
import type { Services } from '../../main/services/services';
import { cliIn, fixtureServices, tempDir } from './helpers';

let s: Services | null = null;
const cleanups: (() => void)[] = [];
afterEach(async () => {
  await s?.close();
  s = null;
  for (const c of cleanups.splice(0)) c();
});

async function until<T>(get: () => Promise<T>, done: (v: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 1200; i++) {
    const v = await get();
    if (done(v)) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('`runs show` of a running run', () => {
  it('prints how far it is, its phase, the time since it started and about how long is left', async () => {
    const t = tempDir('packbench-eta-');
    cleanups.push(t.cleanup);
    s = fixtureServices(t.dir, { autoStart: true });
    const services = s;
    const id = (await s.dispatch('runs.enqueue', { spec: { engine: 'counter', name: 'slow', seed: 1, params: { steps: 2000, stepMs: 10 } } })).runIds[0];
    await until(() => services.dispatch('runs.get', { id }), (r) => r.progress.done >= 100, 'a tenth of the steps');
    const shown = await cliIn(t.dir, 'runs', 'show', id);
    expect(shown.stdout).toMatch(/^ {2}progress \d+\.\d %, phase counting, \d+ s elapsed, about \d+ s left$/m);
    const json = JSON.parse((await cliIn(t.dir, '--json', 'runs', 'show', id)).stdout);
    const { done, total } = json.progress;
    expect(json.elapsedSeconds).toBeGreaterThan(0);
    // The time left at the pace so far: elapsed × (total − done) / done.
    expect(json.etaSeconds).toBeCloseTo((json.elapsedSeconds * (total - done)) / done, 6);
    await s.dispatch('runs.cancel', { id });
    await s.queue.waitFor([id]);
    const ended = await cliIn(t.dir, 'runs', 'show', id);
    expect(ended.stdout).not.toMatch(/^ {2}progress /m);
  }, 60_000);
});
