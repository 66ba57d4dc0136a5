/**
 * The live view of a running packing (EngineContext.publish): the particles so far, and the bed
 * height and solid fraction against seconds, carried in the published table's meta.series.
 */
import type { ColumnTable } from '../common/engine';
import { rotatePoint } from './exact';
import type { Packer } from './packer';

/** Most points a live series keeps: past it, every second point is dropped (the curve stays whole). */
const LIVE_POINTS = 2000;

/** Bed height (length units) and box solid fraction against seconds since the packing started. */
export class LiveSeries {
  private seconds: number[] = [];
  private bedHeight: number[] = [];
  private solidFraction: number[] = [];

  add(seconds: number, bedHeight: number, solidFraction: number): void {
    this.seconds.push(seconds);
    this.bedHeight.push(bedHeight);
    this.solidFraction.push(solidFraction);
    if (this.seconds.length > LIVE_POINTS) {
      const even = (_: number, i: number) => i % 2 === 0;
      this.seconds = this.seconds.filter(even);
      this.bedHeight = this.bedHeight.filter(even);
      this.solidFraction = this.solidFraction.filter(even);
    }
  }

  /** As table meta.series (core/common/engine.ts, "Table meta"). */
  toMeta(): { name: string; xLabel: string; yLabel: string; kind: 'line'; x: number[]; y: number[] }[] {
    const xLabel = 'seconds since the packing started';
    return [
      { name: 'bed height (live)', xLabel, yLabel: 'mean height of the frozen particles\' tops (length units)', kind: 'line', x: this.seconds, y: this.bedHeight },
      { name: 'solid fraction (live)', xLabel, yLabel: 'summed particle volume / box volume', kind: 'line', x: this.seconds, y: this.solidFraction },
    ];
  }
}

/**
 * The particles so far, moving and frozen: centres, rotations, types and sizes as the final table
 * has them (finalise.ts), without what only finalisation knows (voxels held, reference voxels, the
 * analysis' columns), and the live series in meta.series.
 */
export function liveTable(packer: Packer, series: LiveSeries): ColumnTable {
  const n = packer.count, res = packer.params.box.resolution;
  const col = {
    id: new Uint32Array(n), type: new Uint16Array(n), x: new Float64Array(n), y: new Float64Array(n), z: new Float64Array(n),
    rx: new Int16Array(n), ry: new Int16Array(n), rz: new Int16Array(n), size: new Float64Array(n),
  };
  for (let i = 0; i < n; i++) {
    const s = packer.shape[i], v = packer.shapes[s], ax = packer.ax[i], ay = packer.ay[i], az = packer.az[i];
    const c = rotatePoint(v.centre[0], v.centre[1], v.centre[2], ax, ay, az);
    col.id[i] = i;
    col.type[i] = packer.type[i];
    col.x[i] = (packer.px[i] + 0.5 + c[0]) / res;
    col.y[i] = (packer.py[i] + 0.5 + c[1]) / res;
    col.z[i] = (packer.pz[i] + 0.5 + c[2]) / res;
    col.rx[i] = ax; col.ry[i] = ay; col.rz[i] = az;
    col.size[i] = packer.shapeSizeVoxels[s] / res;
  }
  return {
    kind: 'table',
    name: 'particles',
    columns: col,
    meta: {
      box: [...packer.params.box.size],
      resolution: res,
      periodic: [true, true, false],
      dims: [packer.nx, packer.ny, packer.nz],
      types: packer.params.mixture.types.map((t, i) => t.name || `${t.shape.kind} ${i}`),
      step: packer.counters.steps,
      active: packer.activeCount,
      series: series.toMeta(),
    },
  };
}
