/**
 * The one interface of core/spatial: a dynamic set of objects (integer id, centre, and either a
 * radius or the half extents of an axis-aligned box) that answers sphere and box queries and lists
 * all overlapping pairs (the broad phase). Every structure in this folder implements it, so the
 * engines and the randomized equivalence test can swap one for another.
 *
 * Overlap is closed: touching objects overlap. In a periodic domain distances are taken to the
 * nearest periodic image. In 2D the z coordinate and the z half extent are ignored (stored as 0).
 */

/** Work counters, reset with resetCounters(). */
export interface SpatialCounters {
  /** Grid cells, tree cells or list slots scanned. */
  cellsVisited: number;
  /** Exact shape-overlap tests performed (the seed's "collision checks"). */
  candidatesTested: number;
  /** Pairs handed to a pair visitor. */
  pairsReported: number;
  /** Objects remapped into the structure after moving, plus regrids/refinements (per object), or
   *  endpoint swaps for sweep and prune (the seed's "topological events"). */
  remaps: number;
}

export type IdVisitor = (id: number) => void;
export type PairVisitor = (a: number, b: number) => void;

export interface SpatialOptions {
  /** 2 or 3. */
  dim: 2 | 3;
  /** Ids are integers in [0, capacity). */
  capacity: number;
  /** Periodic domain: box edge length per axis (length dim); the domain tiles all space. Objects and
   *  queries must stay smaller than a quarter of the box so that the nearest image is unique. */
  period?: readonly number[];
  /** Put the object arrays in a SharedArrayBuffer so worker threads can read them. */
  shared?: boolean;
}

export interface SpatialIndex {
  readonly name: string;
  readonly dim: 2 | 3;
  readonly capacity: number;
  /** Number of objects present. */
  readonly count: number;
  readonly counters: SpatialCounters;
  has(id: number): boolean;
  insertSphere(id: number, x: number, y: number, z: number, r: number): void;
  /** Box given by centre and half extents. */
  insertBox(id: number, x: number, y: number, z: number, hx: number, hy: number, hz: number): void;
  updateSphere(id: number, x: number, y: number, z: number, r: number): void;
  updateBox(id: number, x: number, y: number, z: number, hx: number, hy: number, hz: number): void;
  /** Moves the centre, keeping the shape. */
  move(id: number, x: number, y: number, z: number): void;
  remove(id: number): void;
  /** Calls visit(id) once for every object overlapping the sphere. */
  querySphere(x: number, y: number, z: number, r: number, visit: IdVisitor): void;
  /** Calls visit(id) once for every object overlapping object `of` (itself included): a query by
   *  the object's own shape, with no coordinates crossing the call. */
  queryObject(of: number, visit: IdVisitor): void;
  /** Calls visit(id) once for every object overlapping the box [min, max]. */
  queryBox(minX: number, minY: number, minZ: number, maxX: number, maxY: number, maxZ: number, visit: IdVisitor): void;
  /** Calls visit(a, b) once for every unordered pair of overlapping objects. */
  pairs(visit: PairVisitor): void;
  resetCounters(): void;
}
