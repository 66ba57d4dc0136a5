/**
 * Uncompressed tar (POSIX ustar) of a few files, written by the caller in order: for each file its
 * 512-byte header, its bytes, zero padding to a 512-byte boundary; then two zero blocks. Sizes of
 * 8 GiB and more use the base-256 size field that GNU tar, bsdtar, 7-Zip and Python's tarfile read.
 * Used to hand a raw volume and its JSON header over as one download.
 */

export const TAR_BLOCK = 512;

/** Header of a regular file `name` (at most 100 bytes of ASCII) of `size` bytes. */
export function tarHeader(name: string, size: number, mtimeSeconds = 0): Uint8Array {
  const nameBytes = new TextEncoder().encode(name);
  if (nameBytes.length > 100) throw new RangeError(`tar entry name '${name}' is longer than 100 bytes`);
  const h = new Uint8Array(TAR_BLOCK);
  const put = (at: number, text: string) => h.set(new TextEncoder().encode(text), at);
  const octal = (at: number, width: number, value: number) => put(at, value.toString(8).padStart(width - 1, '0') + '\0');
  h.set(nameBytes, 0);
  octal(100, 8, 0o644); // mode
  octal(108, 8, 0); // uid
  octal(116, 8, 0); // gid
  if (size < 0o100000000000) octal(124, 12, size); // 8^11: what 11 octal digits hold
  else {
    h[124] = 0x80; // base-256, big-endian in the remaining 11 bytes
    for (let i = 135, v = size; i > 124; i--, v = Math.floor(v / 256)) h[i] = v % 256;
  }
  octal(136, 12, Math.floor(mtimeSeconds));
  h.fill(0x20, 148, 156); // checksum field counts as spaces
  h[156] = 0x30; // '0': regular file
  put(257, 'ustar\0');
  put(263, '00');
  let sum = 0;
  for (let i = 0; i < TAR_BLOCK; i++) sum += h[i];
  put(148, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

/** Zero bytes that pad a file of `size` bytes to the next block. */
export function tarPadding(size: number): Uint8Array {
  return new Uint8Array((TAR_BLOCK - (size % TAR_BLOCK)) % TAR_BLOCK);
}

/** The end of the archive: two zero blocks. */
export const TAR_END = new Uint8Array(2 * TAR_BLOCK);
