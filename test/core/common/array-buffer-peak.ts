import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// The garbage collector, as Jest's leak detector reaches it: the flag, then a fresh context sees `gc`.
// And the buffers it frees are counted off at once: by default a helper thread sweeps them and the
// count drops some time later (after 59 of 300 collections of 5 MB of dropped buffers, the count still
// held them), which can be in the middle of the run measured next.
setFlagsFromString('--expose-gc');
setFlagsFromString('--no-concurrent-array-buffer-sweeping');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * The most ArrayBuffer bytes a synchronous run holds above what was held before it, sampled at each
 * call of `sample` (pass it as the run's progress and log callbacks, and call it once after).
 * process.memoryUsage().arrayBuffers counts the whole process, garbage included: buffers that earlier
 * tests dropped, collected during the run, were subtracted from the run's own bytes (a voxel run once
 * measured 0 bytes, and an estimate could pass against a peak too low). So they go before the start.
 */
export function arrayBufferPeak(): { sample: () => void; peak: () => number } {
  collectGarbage();
  const base = process.memoryUsage().arrayBuffers;
  let peak = 0;
  return {
    sample: () => void (peak = Math.max(peak, process.memoryUsage().arrayBuffers - base)),
    peak: () => peak,
  };
}
