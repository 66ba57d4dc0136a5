/**
 * Multi-page grayscale TIFF stacks of label volumes, laid out the way ImageJ/Fiji writes its own
 * stacks so that Fiji opens them as one stack with the voxel size as calibration:
 *
 *   header (8) | IFD 0 + ImageJ description + resolution | pixel data, page after page | IFDs 1..nz-1
 *
 * Every page is one uncompressed strip, little-endian, 16-bit (or 32-bit when labels exceed 65535)
 * unsigned. The pixel size is in length units (`unit=`, XResolution = pixels per unit); images
 * whose values are measurements (a height map in voxels) carry ImageJ's value calibration
 * (`cf=0` straight line, `c0`, `c1`, `vunit=`) so that Fiji shows the values in their own unit. The pixel data are contiguous, which lets a writer stream them slab by slab. Classic
 * TIFF offsets are 32-bit: beyond 4 GiB only IFD 0 is written and readers use ImageJ's
 * "images=" description to find the contiguous pages, exactly as ImageJ does for its own large stacks.
 */
import { copyOut } from './container';
import type { LabelDtype } from './labels';
import { UNITS } from '../common/units';

const SHORT = 3, LONG = 4, ASCII = 2, RATIONAL = 5;
const FOUR_GIB = 0x1_0000_0000;

export interface TiffLayout {
  /** Header, IFD 0 and its values: write first. */
  head: Uint8Array;
  /** Byte offset of page 0's pixels (= head.length). */
  dataOffset: number;
  pageBytes: number;
  /** IFDs of pages 1..nz-1 (empty beyond 4 GiB): write after the pixels. */
  tail: Uint8Array;
}

interface Entry { tag: number; type: number; count: number; value: number }

function ifdBytes(entries: number): number {
  return 2 + 12 * entries + 4;
}

function writeIfd(view: DataView, at: number, entries: Entry[], next: number): void {
  view.setUint16(at, entries.length, true);
  entries.forEach((e, k) => {
    const o = at + 2 + 12 * k;
    view.setUint16(o, e.tag, true);
    view.setUint16(o + 2, e.type, true);
    view.setUint32(o + 4, e.count, true);
    if (e.type === SHORT && e.count === 1) view.setUint16(o + 8, e.value, true);
    else view.setUint32(o + 8, e.value, true);
  });
  view.setUint32(at + 2 + 12 * entries.length, next, true);
}

export interface TiffOptions {
  /** Length unit of the pixel size (ImageJ's `unit=`). */
  unit?: string;
  /** Pixel values are measurements: calibrated value = offset + scale * pixel, in `unit`. */
  values?: { offset: number; scale: number; unit: string };
  /** Where voxel (0, 0, 0)'s corner lies, in length units (ImageJ's origin, written in pixels). */
  origin?: readonly number[];
  /** Forces the > 4 GiB form (one IFD) for testing readers of it. */
  contiguousOnly?: boolean;
}

const oneLine = (s: string) => s.replace(/\n/g, ' ');

/** ImageJ's description: stack size, calibration (its FileSaver's keys and order). */
function imageJDescription(nz: number, voxelSize: number, o: TiffOptions): string {
  let d = `ImageJ=1.54f\nimages=${nz}\nslices=${nz}\nunit=${oneLine(o.unit ?? UNITS.length)}\n`;
  if (o.values) d += `cf=0\nc0=${o.values.offset}\nc1=${o.values.scale}\nvunit=${oneLine(o.values.unit)}\n`;
  d += `spacing=${voxelSize}\nloop=false\n`;
  // ImageJ's origin is the pixel at which the calibrated position is 0: x = (pixel - xorigin) * size.
  (['x', 'y', 'z'] as const).forEach((axis, a) => {
    const pixels = -(o.origin?.[a] ?? 0) / voxelSize;
    if (pixels !== 0) d += `${axis}origin=${pixels}\n`;
  });
  return d + '\0';
}

/**
 * x (pixels per unit) as a TIFF rational num / den with the larger of the two as near 2^32 as
 * fits, so that 1 / (num / den) is the voxel size to about 1e-9. A fixed denominator of 1000 gave
 * a 0.0459375 voxel (a surface sampling's) as 0.0459369, and a voxel of 1500 (coarse voxels in
 * micrometres) as 1000: round(1000 / 1500) = 1.
 */
function rational(x: number): [number, number] {
  const MAX = 0xffffffff;
  // Beyond these the nearest rational is another size (a 1.64e-10 voxel read back as 2.33e-10): refused, not written.
  if (!(x <= MAX && x >= 1 / MAX)) {
    throw new RangeError(`a voxel of ${1 / x} length units is ${x > MAX ? 'smaller' : 'larger'} than a TIFF resolution holds (pixels per unit as two 32-bit integers: voxels from ${1 / MAX} to ${MAX}): readers would take another size; export vti or raw, whose spacing is exact`);
  }
  if (x >= 1) {
    const den = Math.max(1, Math.floor(MAX / x));
    return [Math.min(MAX, Math.round(x * den)), den];
  }
  const num = Math.max(1, Math.floor(MAX * x));
  return [num, Math.min(MAX, Math.round(num / x))];
}

/**
 * TIFF's ResolutionUnit for a length unit, as ImageJ's TiffEncoder writes it: 2 for inch, 3 for cm,
 * else 1 (no absolute unit; ImageJ reads the unit from the description). Left out, it defaults to
 * inch, and readers other than ImageJ took a 1/16 mm voxel for 1/16 inch.
 */
function resolutionUnit(unit: string | undefined): number {
  return unit === 'inch' ? 2 : unit === 'cm' ? 3 : 1;
}

/** The layout of an nx x ny x nz stack of voxelSize-sized voxels. */
export function tiffLayout(
  dims: readonly [number, number, number],
  voxelSize: number,
  dtype: LabelDtype,
  options: TiffOptions = {},
): TiffLayout {
  const [nx, ny, nz] = dims;
  const bps = dtype === 'uint16' ? 16 : 32;
  const pageBytes = nx * ny * (bps / 8);
  const description = new TextEncoder().encode(imageJDescription(nz, voxelSize, options));
  const contiguousOnly = options.contiguousOnly ?? false;
  const commonEntries = 14; // entries of pages 1..nz-1; IFD 0 adds the ImageDescription
  const ifd0 = 8;
  const descAt = ifd0 + ifdBytes(commonEntries + 1);
  const resAt = descAt + description.length + (description.length & 1);
  const dataOffset = resAt + 16;
  const tailAt = dataOffset + nz * pageBytes;
  const manyIfds = !contiguousOnly && nz > 1 && tailAt + (nz - 1) * ifdBytes(commonEntries) < FOUR_GIB;
  if (!manyIfds && dataOffset + pageBytes > FOUR_GIB) throw new RangeError(`a single ${nx}x${ny} page of ${bps}-bit labels exceeds the 4 GiB TIFF limit`);
  const [num, den] = rational(1 / voxelSize);
  const entries = (page: number, withDescription: boolean): Entry[] => {
    const list: Entry[] = [
      { tag: 254, type: LONG, count: 1, value: 0 }, // NewSubfileType
      { tag: 256, type: LONG, count: 1, value: nx }, // ImageWidth
      { tag: 257, type: LONG, count: 1, value: ny }, // ImageLength
      { tag: 258, type: SHORT, count: 1, value: bps }, // BitsPerSample
      { tag: 259, type: SHORT, count: 1, value: 1 }, // Compression: none
      { tag: 262, type: SHORT, count: 1, value: 1 }, // Photometric: black is zero
    ];
    if (withDescription) list.push({ tag: 270, type: ASCII, count: description.length, value: descAt });
    list.push(
      { tag: 273, type: LONG, count: 1, value: dataOffset + page * pageBytes }, // StripOffsets
      { tag: 277, type: SHORT, count: 1, value: 1 }, // SamplesPerPixel
      { tag: 278, type: LONG, count: 1, value: ny }, // RowsPerStrip
      { tag: 279, type: LONG, count: 1, value: pageBytes }, // StripByteCounts
      { tag: 282, type: RATIONAL, count: 1, value: resAt }, // XResolution
      { tag: 283, type: RATIONAL, count: 1, value: resAt + 8 }, // YResolution
      { tag: 296, type: SHORT, count: 1, value: resolutionUnit(options.unit) }, // ResolutionUnit
      { tag: 339, type: SHORT, count: 1, value: 1 }, // SampleFormat: unsigned integer
    );
    if (list.length !== commonEntries + (withDescription ? 1 : 0)) throw new Error('internal: TIFF entry count changed');
    return list;
  };
  const head = new Uint8Array(dataOffset);
  const hv = new DataView(head.buffer);
  head[0] = 0x49; head[1] = 0x49; // 'II'
  hv.setUint16(2, 42, true);
  hv.setUint32(4, ifd0, true);
  writeIfd(hv, ifd0, entries(0, true), manyIfds ? tailAt : 0);
  head.set(description, descAt);
  hv.setUint32(resAt, num, true); hv.setUint32(resAt + 4, den, true);
  hv.setUint32(resAt + 8, num, true); hv.setUint32(resAt + 12, den, true);
  let tail = new Uint8Array(0);
  if (manyIfds) {
    const size = ifdBytes(commonEntries);
    tail = new Uint8Array((nz - 1) * size);
    const tv = new DataView(tail.buffer);
    for (let p = 1; p < nz; p++) {
      const at = (p - 1) * size;
      writeIfd(tv, at, entries(p, false), p + 1 < nz ? tailAt + at + size : 0);
    }
  }
  return { head, dataOffset, pageBytes, tail };
}

/** Reads a TIFF stack written by this module (or any uncompressed single-strip-per-page gray stack). */
export function decodeTiffStack(bytes: Uint8Array): { dims: [number, number, number]; bitsPerSample: number; labels: Uint32Array; description: string } {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes[0] !== 0x49 || bytes[1] !== 0x49 || v.getUint16(2, true) !== 42) throw new Error('not a little-endian classic TIFF (II, 42)');
  const pages: { width: number; height: number; bps: number; offset: number }[] = [];
  let description = '';
  for (let at = v.getUint32(4, true); at !== 0; ) {
    const n = v.getUint16(at, true);
    const page = { width: 0, height: 0, bps: 0, offset: 0 };
    for (let k = 0; k < n; k++) {
      const o = at + 2 + 12 * k;
      const tag = v.getUint16(o, true), type = v.getUint16(o + 2, true), count = v.getUint32(o + 4, true);
      const value = type === SHORT ? v.getUint16(o + 8, true) : v.getUint32(o + 8, true);
      if (tag === 256) page.width = value;
      else if (tag === 257) page.height = value;
      else if (tag === 258) page.bps = value;
      else if (tag === 259 && value !== 1) throw new Error(`TIFF compression ${value} is not supported (only uncompressed)`);
      else if (tag === 273) page.offset = value;
      else if (tag === 270 && pages.length === 0) description = new TextDecoder().decode(bytes.subarray(value, value + count)).replace(/\0+$/, '');
    }
    pages.push(page);
    at = v.getUint32(at + 2 + 12 * n, true);
  }
  const images = Number(/images=(\d+)/.exec(description)?.[1] ?? pages.length);
  const { width, height, bps } = pages[0];
  const pageBytes = width * height * (bps / 8);
  const labels = new Uint32Array(width * height * images);
  for (let p = 0; p < images; p++) {
    // Pages beyond the IFDs follow page 0 contiguously (ImageJ's large-stack layout).
    const offset = p < pages.length ? pages[p].offset : pages[0].offset + p * pageBytes;
    const n = width * height;
    labels.set(bps === 16 ? copyOut(bytes, offset, n, Uint16Array) : bps === 8 ? bytes.subarray(offset, offset + n) : copyOut(bytes, offset, n, Uint32Array), p * n);
  }
  return { dims: [width, height, images], bitsPerSample: bps, labels, description };
}
