/**
 * Label sample width for image exports: 16-bit when every label fits (Fiji, ParaView and numpy
 * then read half the bytes), else 32-bit. Slabs are converted into a reusable buffer.
 */
export type LabelDtype = 'uint16' | 'uint32';

export function labelDtype(maxLabel: number): LabelDtype {
  return maxLabel <= 0xffff ? 'uint16' : 'uint32';
}

export function bytesPerLabel(dtype: LabelDtype): number {
  return dtype === 'uint16' ? 2 : 4;
}

/** Little-endian bytes of `labels` at the given width, written into `out` (reused across slabs). */
export function labelBytes(labels: Uint32Array, dtype: LabelDtype, out: Uint8Array): Uint8Array {
  if (dtype === 'uint32') return new Uint8Array(labels.buffer, labels.byteOffset, labels.byteLength);
  const view = new Uint16Array(out.buffer, out.byteOffset, labels.length);
  for (let i = 0; i < labels.length; i++) view[i] = labels[i];
  return new Uint8Array(out.buffer, out.byteOffset, labels.length * 2);
}

export function maxOf(labels: Uint32Array): number {
  let m = 0;
  for (let i = 0; i < labels.length; i++) if (labels[i] > m) m = labels[i];
  return m;
}
