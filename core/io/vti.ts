/**
 * VTK ImageData (.vti, XML) with the labels as appended raw binary cell data, the form ParaView
 * reads without conversion: header text, '_', a UInt64 byte count, the samples (x fastest), then
 * the closing text. Voxels are cells, so a label volume of nx x ny x nz voxels has point extent
 * 0..nx and each voxel is drawn as a cube of the voxel size.
 */
import { copyOut } from './container';
import type { LabelDtype } from './labels';

const VTK_TYPE: Record<LabelDtype, string> = { uint16: 'UInt16', uint32: 'UInt32' };

/** Text before the data, including the '_' marker and the 8-byte little-endian byte count. */
/** `origin`: where voxel (0, 0, 0)'s corner lies, in length units. */
export function vtiHead(dims: readonly [number, number, number], voxelSize: number, dtype: LabelDtype, name = 'label', origin: readonly number[] = [0, 0, 0]): Uint8Array {
  const [nx, ny, nz] = dims;
  const extent = `0 ${nx} 0 ${ny} 0 ${nz}`;
  const text =
    '<?xml version="1.0"?>\n' +
    '<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">\n' +
    `  <ImageData WholeExtent="${extent}" Origin="${origin[0]} ${origin[1]} ${origin[2]}" Spacing="${voxelSize} ${voxelSize} ${voxelSize}">\n` +
    `    <Piece Extent="${extent}">\n` +
    `      <CellData Scalars="${name}">\n` +
    `        <DataArray type="${VTK_TYPE[dtype]}" Name="${name}" format="appended" offset="0"/>\n` +
    '      </CellData>\n' +
    '    </Piece>\n' +
    '  </ImageData>\n' +
    '  <AppendedData encoding="raw">\n   _';
  const head = new TextEncoder().encode(text);
  const out = new Uint8Array(head.length + 8);
  out.set(head);
  const bytes = nx * ny * nz * (dtype === 'uint16' ? 2 : 4);
  new DataView(out.buffer).setBigUint64(head.length, BigInt(bytes), true);
  return out;
}

export function vtiTail(): Uint8Array {
  return new TextEncoder().encode('\n  </AppendedData>\n</VTKFile>\n');
}

/** Reads back a .vti written by vtiHead/vtiTail (tests and re-import): dims, spacing and labels. */
export function decodeVti(bytes: Uint8Array): { dims: [number, number, number]; voxelSize: number; origin: number[]; dtype: LabelDtype; labels: Uint32Array } {
  const probe = new TextDecoder('latin1').decode(bytes.subarray(0, Math.min(bytes.length, 65536)));
  const appended = probe.indexOf('<AppendedData encoding="raw">');
  const marker = appended < 0 ? -1 : probe.indexOf('_', appended);
  if (marker < 0) throw new Error('not a .vti with raw appended data: no <AppendedData encoding="raw"> ... _ marker');
  const text = probe.slice(0, marker);
  const extent = /WholeExtent="([^"]+)"/.exec(text)?.[1].split(' ').map(Number);
  const spacing = /Spacing="([^"]+)"/.exec(text)?.[1].split(' ').map(Number);
  const origin = /Origin="([^"]+)"/.exec(text)?.[1].split(' ').map(Number) ?? [0, 0, 0];
  const type = /DataArray type="(\w+)"/.exec(text)?.[1];
  if (!extent || !spacing || !type) throw new Error('not a PackBench-style .vti: missing WholeExtent, Spacing or DataArray type');
  const dims: [number, number, number] = [extent[1] - extent[0], extent[3] - extent[2], extent[5] - extent[4]];
  const dtype: LabelDtype = type === 'UInt16' ? 'uint16' : 'uint32';
  const start = marker + 1;
  const count = Number(new DataView(bytes.buffer, bytes.byteOffset + start, 8).getBigUint64(0, true));
  if (start + 8 + count > bytes.length) throw new Error(`.vti appended data is truncated: needs ${count} bytes after the marker`);
  const labels = dtype === 'uint16' ? Uint32Array.from(copyOut(bytes, start + 8, count / 2, Uint16Array)) : copyOut(bytes, start + 8, count / 4, Uint32Array);
  return { dims, voxelSize: spacing[0], origin, dtype, labels };
}
