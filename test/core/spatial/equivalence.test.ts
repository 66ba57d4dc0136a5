import { describe, expect, it } from 'vitest';
import { BruteForce } from '../../../core/spatial/brute-force';
import { CellSpace } from '../../../core/spatial/cell-space';
import { HashedGrid } from '../../../core/spatial/hashed-grid';
import { SpatialTree } from '../../../core/spatial/spatial-tree';
import { SweepAndPrune } from '../../../core/spatial/sweep-and-prune';
import type { SpatialIndex } from '../../../core/spatial/types';
import { checkEquivalence, scenarios, type Scenario } from './harness';

type Factory = (sc: Scenario) => SpatialIndex;

const base = (sc: Scenario) => ({ dim: sc.dim, capacity: sc.capacity, period: sc.periodic ? Array(sc.dim).fill(sc.size) : undefined });

const structures: { name: string; periodic: boolean; make: Factory }[] = [
  { name: 'brute force', periodic: true, make: (sc) => new BruteForce(base(sc)) },
  { name: 'hashed grid', periodic: true, make: (sc) => new HashedGrid({ ...base(sc), bits: 2, cellSize: 7 }) },
  { name: 'spatial tree', periodic: true, make: (sc) => new SpatialTree({ ...base(sc), cellSize: 2 * sc.rMin }) },
  {
    name: 'cell space (PFC defaults)', periodic: false,
    make: (sc) => new CellSpace({ ...base(sc), domainMin: Array(sc.dim).fill(0), domainSize: Array(sc.dim).fill(sc.size) }),
  },
  {
    name: 'cell space (coarse parents, refining)', periodic: false,
    make: (sc) => new CellSpace({
      ...base(sc), domainMin: Array(sc.dim).fill(10), domainSize: Array(sc.dim).fill(sc.size - 20), parentCells: 2, targetPerCell: 2,
      toleranceExtent: 0.2, refineFactor: 2,
    }),
  },
  { name: 'sweep and prune (one list, fixed axis)', periodic: false, make: (sc) => new SweepAndPrune({ ...base(sc), axis: sc.dim - 1, columns: false }) },
  { name: 'sweep and prune (columns, auto axis)', periodic: false, make: (sc) => new SweepAndPrune(base(sc)) },
  // Columns narrower than the objects: most objects sit in several columns and move between them.
  { name: 'sweep and prune (narrow columns)', periodic: false, make: (sc) => new SweepAndPrune({ ...base(sc), columnSize: sc.rMin }) },
];

for (const s of structures) {
  describe(`${s.name} equals brute force`, () => {
    for (const sc of scenarios({ periodic: s.periodic ? [false, true] : [false], n: 150, operations: 2000 })) {
      const label = `${sc.dim}D ${sc.periodic ? 'periodic' : 'open'} ${sc.clustered ? 'clustered' : 'uniform'} size ratio ${sc.sizeRatio}`;
      it(label, () => {
        const index = s.make(sc);
        const r = checkEquivalence(index, sc);
        // The refining cell space must actually have refined and merged cells along the way.
        if (s.name.includes('refining')) expect((index as CellSpace).refinements).toBeGreaterThan(0);
        // The column sweeps must actually have used several columns.
        if (index instanceof SweepAndPrune && index.useColumns) expect(index.columnCount).toBeGreaterThan(1);
        expect(r.pairChecks).toBeGreaterThan(10);
        expect(r.pairsSeen).toBeGreaterThan(0);
      });
    }
  });
}
