// The one worker entry: runs the engine of core's list that the run names (WorkerInput.engineId).
import { ENGINES } from '../../core/common/engines';
import { runEngineWorker } from './runtime';

await runEngineWorker(ENGINES);
