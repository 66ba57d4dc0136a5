/**
 * The one list of PackBench's engines (ARCHITECTURE.md, "Adding an engine"): an engine plugs in by
 * one line here. The services' registry, the generic worker entry (main/workers/engine.ts) and the
 * CLI read it; the batch form, History and the inspector follow from each definition.
 * Not re-exported by core/common/index.ts, whose contract the engines themselves import.
 */
import type { EngineDefinition, MetricInfo } from './engine';
import { voxelEngine } from '../voxel/index';
import { surfaceEngine } from '../surface/index';
import { stackingEngine } from '../stacking/index';
import { ballmillEngine } from '../ballmill/index';

export const ENGINES: readonly EngineDefinition[] = [voxelEngine, surfaceEngine, stackingEngine, ballmillEngine];

/** What an engine's metrics mean (unit, description); {} for an engine this build does not know (an imported run). */
export function metricInfo(engine: string): Record<string, MetricInfo> {
  return ENGINES.find((e) => e.id === engine)?.metrics ?? {};
}
