/**
 * The collision-detection optimisations (seed §4) as core/spatial structures over the balls' boxes.
 * 'direct' has no structure: every pair is a neighbour. The others hold one axis-aligned box per
 * ball (half edges r + δ, vertically r + δ_z: see simulation.ts, around the ball when the box
 * was placed), and two
 * balls are neighbours when their boxes overlap; see simulation.ts for why that is enough.
 *
 *   regularSubdivision  the seed's regular subdivision: the PFC cell space without refinement, cells
 *                       as large as 2.2 times the largest box half edge
 *   hashedGrid          Heckbert's hashed grid, cubes of the largest box edge, enough cells to cover the vial
 *   cellSpace           the PFC cell space with refinement (core/spatial defaults)
 *   sweepAndPrune       the seed's set of segment trees: sweep and prune with columns (core/spatial default)
 *   spatialTree         the seed's regular spatial tree: finest cells so that the largest box fills a
 *                       cell of some level
 */
import { powInt } from '../common/power';
import { CellSpace, HashedGrid, SpatialTree, SweepAndPrune, type SpatialIndex } from '../spatial';
import type { CdoName } from './params';

export interface CdoDomain {
  dim: 2 | 3;
  capacity: number;
  /** Bounding box of everything the boxes can cover, in the structure's axes (2D: x, vertical). */
  min: readonly number[];
  size: readonly number[];
  /** Smallest, mean and largest box half edge. */
  hMin: number;
  hMean: number;
  hMax: number;
}

/** The structure for a CDO, or null for 'direct'. */
export function createStructure(name: CdoName, d: CdoDomain): SpatialIndex | null {
  const o = { dim: d.dim, capacity: d.capacity };
  const min = d.min.slice(0, d.dim), size = d.size.slice(0, d.dim);
  switch (name) {
    case 'direct': return null;
    case 'regularSubdivision': {
      const volume = size.reduce((p, v) => p * v, 1);
      const parentCells = Math.max(1, Math.min(1 << 25, Math.floor(volume / powInt(2.2 * d.hMax, d.dim))));
      return new CellSpace({ ...o, domainMin: min, domainSize: size, parentCells, refine: false });
    }
    case 'hashedGrid': {
      // A box query scans its half edge plus the largest half edge around its centre: cells of the
      // largest box edge make that 2-3 cells per axis.
      const cell = 2 * d.hMax;
      const maxCells = 1 << 24;
      const maxBits = Math.floor(Math.log2(maxCells) / d.dim);
      const bits = Math.min(maxBits, Math.max(0, Math.ceil(Math.log2(Math.max(...size) / cell))));
      return new HashedGrid({ ...o, cellSize: cell, bits, maxCells, autoRegrid: false });
    }
    case 'cellSpace': return new CellSpace({ ...o, domainMin: min, domainSize: size });
    case 'sweepAndPrune': return new SweepAndPrune(o);
    case 'spatialTree': return new SpatialTree({ ...o, cellSize: (2 * d.hMax) / powInt(2, Math.floor(Math.log2(d.hMax / d.hMin))) });
  }
}
