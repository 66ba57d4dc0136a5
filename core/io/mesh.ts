/**
 * Triangle meshes from STL (binary and ASCII) and Wavefront OBJ, and the watertightness check that
 * the solid-inside test of voxelise.ts needs. A mesh is a flat Float64Array, nine numbers a triangle.
 */

export interface TriangleMesh {
  /** x0 y0 z0 x1 y1 z1 x2 y2 z2 per triangle. */
  positions: Float64Array;
  triangles: number;
}

import { forEachLine } from './lines';

const decoder = new TextDecoder();

/**
 * Binary when the size matches the triangle count in the header; ASCII when it starts with 'solid'.
 * More than maxTriangles triangles are refused before their arrays are allocated.
 */
export function parseStl(bytes: Uint8Array, maxTriangles = Infinity): TriangleMesh {
  if (bytes.length >= 84) {
    const count = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
    if (bytes.length === 84 + 50 * count) return parseBinaryStl(bytes, count, maxTriangles);
  }
  const start = decoder.decode(bytes.subarray(0, Math.min(bytes.length, 512))).trimStart();
  // Text never holds a NUL byte; binary STL does (the count, the floats). Some binary headers start
  // with 'solid' too (SolidWorks writes 'solid <name>' there): such a file's fault is its size.
  const binary = bytes.length >= 84 && bytes.subarray(0, Math.min(bytes.length, 4096)).includes(0);
  if (start.toLowerCase().startsWith('solid') && !binary) return parseAsciiStl(decoder.decode(bytes), maxTriangles);
  if (bytes.length < 84) throw new Error(`STL is malformed: ${bytes.length} bytes is shorter than the 84-byte binary header, and it does not start with 'solid'`);
  const count = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true);
  const size = `header says ${count} triangles (${84 + 50 * count} bytes) but the file has ${bytes.length} bytes`;
  if (start.toLowerCase().startsWith('solid')) throw new Error(`STL is malformed: it starts with 'solid' but is binary: its ${size}`);
  throw new Error(`STL is malformed: binary ${size}, and it does not start with 'solid' (ASCII)`);
}

/**
 * The most triangles a mesh import of these bytes takes (the import task sets memory aside for
 * them: main/services/imports.ts importTaskBytes): a binary STL's own count, else one per 16 bytes of file, and 2^20 whatever the size. A
 * large OBJ has one per 20-30 bytes (quads of 6-digit indices and their vertex lines); one of long
 * faces can have far more (a 40 MB file fans into 2·10⁷ triangles, 3.4 GB to hold) and is refused.
 */
export function meshTriangleLimit(bytes: Uint8Array): number {
  const count = bytes.length >= 84 ? new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(80, true) : -1;
  if (bytes.length === 84 + 50 * count) return count;
  return Math.max(1 << 20, Math.floor(bytes.length / 16));
}

/** The refusal of a mesh of more triangles than an import holds. */
function checkTriangles(what: string, triangles: number, maxTriangles: number): void {
  if (triangles > maxTriangles) throw new RangeError(`${what} has ${triangles} triangles, more than the ${maxTriangles} an import of a file this size holds (memory is set aside by the file's size); simplify the mesh`);
}

function parseBinaryStl(bytes: Uint8Array, count: number, maxTriangles: number): TriangleMesh {
  checkTriangles('STL', count, maxTriangles);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const positions = new Float64Array(count * 9);
  for (let t = 0; t < count; t++) {
    const at = 84 + 50 * t + 12;
    for (let k = 0; k < 9; k++) {
      const c = v.getFloat32(at + 4 * k, true);
      if (!Number.isFinite(c)) throw new Error(`STL triangle ${t} has a non-finite coordinate`);
      positions[9 * t + k] = c;
    }
  }
  return { positions, triangles: count };
}

const wordsOf = (line: string): string[] => line.trim().split(/\s+/);

/**
 * Two passes over the lines: the facets are counted first, so that the positions are one array
 * allocated once, after the count is checked (a plain array grown vertex by vertex took twice the
 * memory, and past 2^27 numbers V8 aborts the whole process instead of throwing).
 */
function parseAsciiStl(text: string, maxTriangles: number): TriangleMesh {
  let facets = 0;
  forEachLine(text, (line) => { if (wordsOf(line)[0]?.toLowerCase() === 'facet') facets++; });
  checkTriangles('ASCII STL', facets, maxTriangles);
  const positions = new Float64Array(9 * facets);
  let at = 0;
  let inFacet = false, verticesInFacet = 0, facetLine = 0;
  forEachLine(text, (line, number) => {
    const words = wordsOf(line);
    const w = words[0]?.toLowerCase();
    if (w === 'facet') {
      if (inFacet) throw new Error(`ASCII STL line ${number}: 'facet' inside the facet opened on line ${facetLine}`);
      inFacet = true; verticesInFacet = 0; facetLine = number;
    } else if (w === 'vertex') {
      if (!inFacet) throw new Error(`ASCII STL line ${number}: 'vertex' outside a facet`);
      const x = Number(words[1]), y = Number(words[2]), z = Number(words[3]);
      if (words.length < 4 || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) throw new Error(`ASCII STL line ${number}: expected 'vertex x y z', got '${line.trim()}'`);
      if (++verticesInFacet > 3) throw new Error(`ASCII STL facet at line ${facetLine} has more than 3 vertices`);
      positions[at++] = x; positions[at++] = y; positions[at++] = z;
    } else if (w === 'endfacet') {
      if (verticesInFacet !== 3) throw new Error(`ASCII STL facet at line ${facetLine} has ${verticesInFacet} vertices, expected 3`);
      inFacet = false;
    }
  });
  if (inFacet) throw new Error(`ASCII STL ends inside the facet opened on line ${facetLine}`);
  if (at === 0) throw new Error('ASCII STL has no facets');
  return { positions, triangles: at / 9 };
}

/**
 * OBJ vertices ('v x y z') and faces ('f a b c ...', 1-based or negative, '/' parts ignored),
 * polygons fanned. Two passes, as parseAsciiStl: vertices and triangles counted, then more than
 * maxTriangles refused before anything is allocated (a 40 MB file of long faces fans into 2·10⁷
 * triangles, whose plain array of coordinates aborted the process).
 */
export function parseObj(text: string, maxTriangles = Infinity): TriangleMesh {
  let vertices = 0, triangles = 0;
  forEachLine(text, (line) => {
    const words = wordsOf(line);
    if (words[0] === 'v') vertices++;
    else if (words[0] === 'f') triangles += Math.max(0, words.length - 3);
  });
  checkTriangles('OBJ', triangles, maxTriangles);
  const verts = new Float64Array(3 * vertices), positions = new Float64Array(9 * triangles);
  let nv = 0, at = 0;
  forEachLine(text, (line, number) => {
    const words = wordsOf(line);
    if (words[0] === 'v') {
      const x = Number(words[1]), y = Number(words[2]), z = Number(words[3]);
      if (words.length < 4 || !Number.isFinite(x) || !Number.isFinite(y) || !Number.isFinite(z)) throw new Error(`OBJ line ${number}: expected 'v x y z', got '${line.trim()}'`);
      verts[3 * nv] = x; verts[3 * nv + 1] = y; verts[3 * nv + 2] = z;
      nv++;
    } else if (words[0] === 'f') {
      const idx = words.slice(1).map((w) => {
        const k = parseInt(w.split('/')[0], 10);
        const j = k < 0 ? nv + k : k - 1;
        if (!Number.isInteger(k) || k === 0 || j < 0 || j >= nv) throw new Error(`OBJ line ${number}: vertex index '${w}' is not in 1..${nv} (or -1..-${nv})`);
        return j;
      });
      if (idx.length < 3) throw new Error(`OBJ line ${number}: a face needs at least 3 vertices, got ${idx.length}`);
      for (let k = 1; k + 1 < idx.length; k++) {
        for (const j of [idx[0], idx[k], idx[k + 1]]) { positions[at++] = verts[3 * j]; positions[at++] = verts[3 * j + 1]; positions[at++] = verts[3 * j + 2]; }
      }
    }
  });
  if (triangles === 0) throw new Error('OBJ has no faces');
  return { positions, triangles };
}

export interface WatertightReport {
  watertight: boolean;
  /** Edges used by one triangle only (holes). */
  boundaryEdges: number;
  /** Edges shared by more than two triangles. */
  nonManifoldEdges: number;
  /** Edges whose two triangles run them in the same direction (flipped faces). */
  inconsistentEdges: number;
  /** One offending edge, for the error message. */
  example?: [number[], number[]];
}

/**
 * Checks that every edge is shared by exactly two triangles running it in opposite directions.
 * Vertices are matched by exact coordinates, as STL writers repeat them bit for bit. In typed
 * arrays (a hash table of vertices, the sorted directed edges): with a Map keyed by coordinate
 * strings and an array per edge, a 2·10⁶-triangle mesh took 10 s and 590 MB here, more than the
 * import's memory estimate allowed for the whole import.
 */
export function checkWatertight(mesh: TriangleMesh): WatertightReport {
  const { ids, firstOf } = vertexIds(mesh.positions, 3 * mesh.triangles);
  // Each directed edge a->b as ((min, max) * 2 + (a > b)): sorted, an undirected edge's uses lie together.
  const keys = new Float64Array(3 * mesh.triangles);
  let n = 0;
  for (let t = 0; t < mesh.triangles; t++) {
    const v0 = ids[3 * t], v1 = ids[3 * t + 1], v2 = ids[3 * t + 2];
    if (v0 === v1 || v1 === v2 || v0 === v2) continue; // degenerate: no area, no edges
    keys[n++] = edgeKey(v0, v1);
    keys[n++] = edgeKey(v1, v2);
    keys[n++] = edgeKey(v2, v0);
  }
  const sorted = keys.subarray(0, n).sort();
  const report: WatertightReport = { watertight: true, boundaryEdges: 0, nonManifoldEdges: 0, inconsistentEdges: 0 };
  for (let i = 0; i < n; ) {
    const edge = Math.floor(sorted[i] / 2);
    let fwd = 0, back = 0;
    for (; i < n && Math.floor(sorted[i] / 2) === edge; i++) {
      if (sorted[i] % 2 === 0) fwd++;
      else back++;
    }
    const total = fwd + back;
    let bad = true;
    if (total === 1) report.boundaryEdges++;
    else if (total > 2) report.nonManifoldEdges++;
    else if (fwd !== 1) report.inconsistentEdges++;
    else bad = false;
    if (bad && !report.example) {
      const a = Math.floor(edge / MAX_VERTICES), b = edge - a * MAX_VERTICES;
      const point = (id: number) => Array.from(mesh.positions.subarray(3 * firstOf[id], 3 * firstOf[id] + 3));
      report.example = [point(a), point(b)];
    }
  }
  report.watertight = report.boundaryEdges === 0 && report.nonManifoldEdges === 0 && report.inconsistentEdges === 0;
  return report;
}

/** Distinct vertices an edge key can name (two ids and a direction bit stay below 2^53). */
const MAX_VERTICES = 1 << 26;

const edgeKey = (a: number, b: number): number => (a < b ? a * MAX_VERTICES + b : b * MAX_VERTICES + a) * 2 + (a > b ? 1 : 0);

const hashScratch = new Float64Array(1);
const hashWords = new Uint32Array(hashScratch.buffer);

/** A 32-bit hash of a vertex (0 and -0 alike, as they are the same point). */
const vertexHash = (x: number, y: number, z: number): number => mixCoordinate(mixCoordinate(mixCoordinate(0x9e3779b9, x), y), z) >>> 0;

function mixCoordinate(h: number, c: number): number {
  hashScratch[0] = c + 0;
  h = Math.imul(h ^ hashWords[0], 0x85ebca6b);
  h = Math.imul(h ^ hashWords[1], 0xc2b2ae35);
  return h ^ (h >>> 15);
}

/**
 * The id of each of the first `count` vertices of `positions` (x y z each), equal coordinates
 * giving equal ids, and the vertex where each id was first seen (firstOf).
 */
function vertexIds(positions: Float64Array, count: number): { ids: Int32Array; firstOf: Int32Array } {
  let capacity = 1;
  while (capacity < 2 * count) capacity *= 2;
  const mask = capacity - 1;
  const slots = new Int32Array(capacity).fill(-1);
  const ids = new Int32Array(count), firstOf = new Int32Array(count);
  let distinct = 0;
  for (let k = 0; k < count; k++) {
    const x = positions[3 * k], y = positions[3 * k + 1], z = positions[3 * k + 2];
    let at = vertexHash(x, y, z) & mask;
    for (;;) {
      const id = slots[at];
      if (id < 0) {
        if (distinct === MAX_VERTICES) throw new Error(`mesh has more than ${MAX_VERTICES} distinct vertices, more than the watertightness check holds`);
        slots[at] = ids[k] = distinct;
        firstOf[distinct++] = k;
        break;
      }
      const f = 3 * firstOf[id];
      if (positions[f] === x && positions[f + 1] === y && positions[f + 2] === z) {
        ids[k] = id;
        break;
      }
      at = (at + 1) & mask;
    }
  }
  return { ids, firstOf };
}

/** Throws a message that says what is wrong with the mesh and where, unless it is watertight. */
export function assertWatertight(mesh: TriangleMesh, source = 'mesh'): void {
  const r = checkWatertight(mesh);
  if (r.watertight) return;
  const parts = [];
  if (r.boundaryEdges) parts.push(`${r.boundaryEdges} boundary edges (holes)`);
  if (r.nonManifoldEdges) parts.push(`${r.nonManifoldEdges} edges shared by more than two triangles`);
  if (r.inconsistentEdges) parts.push(`${r.inconsistentEdges} edges of inconsistently oriented (flipped) triangles`);
  const ex = r.example ? `, e.g. the edge from (${r.example[0].join(', ')}) to (${r.example[1].join(', ')})` : '';
  throw new Error(`${source} is not watertight: ${parts.join(', ')}${ex}; the inside test needs a closed, consistently oriented surface (repair it, e.g. in MeshLab or Blender's 3D-Print toolbox)`);
}
