import { describe, expect, it } from 'vitest';
import { countLines, forEachLine, splitLines } from '../../../core/io/lines';
import { Random } from '../../../core/common/random';

describe('lines', () => {
  it('countLines counts and forEachLine visits the lines splitLines makes, for LF, CRLF, CR alone and mixed, empty lines too', () => {
    const rnd = new Random(7);
    const pieces = ['a', 'bc', '', '\n', '\r', '\r\n', '\n\r'];
    for (let t = 0; t < 500; t++) {
      let text = '';
      const n = rnd.int(20);
      for (let i = 0; i < n; i++) text += pieces[rnd.int(pieces.length)];
      expect(countLines(text), JSON.stringify(text)).toBe(splitLines(text).length);
      const visited: string[] = [];
      forEachLine(text, (line, number) => { visited.push(line); expect(number).toBe(visited.length); });
      expect(visited, JSON.stringify(text)).toEqual(splitLines(text));
    }
  });
});
