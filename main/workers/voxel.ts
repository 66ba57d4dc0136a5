// Worker entry of the voxel packing engine (core/voxel).
import { voxelEngine } from '../../core/voxel';
import { runEngineWorker } from './runtime';

await runEngineWorker(voxelEngine);
