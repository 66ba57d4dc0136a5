import { describe, expect, it } from 'vitest';
import { tarHeader, tarPadding } from '../../../core/io/tar';

describe('tar headers', () => {
  it('write octal sizes below 8 GiB and base-256 sizes above, with a valid checksum', () => {
    const small = tarHeader('a.raw', 1000);
    expect(new TextDecoder().decode(small.subarray(124, 135))).toBe((1000).toString(8).padStart(11, '0'));
    const big = tarHeader('b.raw', 3 * 2 ** 33 + 5);
    expect(big[124]).toBe(0x80);
    let size = 0;
    for (let i = 125; i < 136; i++) size = size * 256 + big[i];
    expect(size).toBe(3 * 2 ** 33 + 5);
    for (const h of [small, big]) {
      let sum = 0;
      for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i];
      expect(parseInt(new TextDecoder().decode(h.subarray(148, 154)), 8)).toBe(sum);
    }
    expect(tarPadding(1000).length).toBe(24);
    expect(tarPadding(1024).length).toBe(0);
    expect(() => tarHeader('x'.repeat(101), 1)).toThrow(/longer than 100 bytes/);
  });
});
