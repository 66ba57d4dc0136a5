export * from './types';
export { shapesOverlap } from './objects';
export { BruteForce } from './brute-force';
export { HashedGrid, type HashedGridOptions } from './hashed-grid';
export { CellSpace, type CellSpaceOptions } from './cell-space';
export { SweepAndPrune, type SweepAndPruneOptions } from './sweep-and-prune';
export { SpatialTree, type SpatialTreeOptions } from './spatial-tree';
export { latticePacking, LATTICE_MAX_FRACTION, type LatticePacking, type LatticePackingOptions } from './lattice-packing';
export { randomPacking, type RandomPacking, type RandomPackingOptions } from './random-packing';
