import { describe, expect, it } from 'vitest';
import { parseJsonText } from '../../../core/io/json';

const failure = (text: string): string => {
  try {
    parseJsonText(text);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('parsed');
};

describe('parseJsonText', () => {
  it('names where the JSON breaks by line and column, as an editor counts them', () => {
    expect(failure('{\n  "a": 1\n  "b": 2\n}')).toBe("not valid JSON at line 3, column 3: Expected ',' or '}' after property value");
    expect(failure('{\n  "a": 1,\n}')).toBe('not valid JSON at line 3, column 1: Expected double-quoted property name');
  });

  it('counts lines ended by CR (classic Mac) or CRLF as an editor does', () => {
    for (const br of ['\r', '\r\n']) {
      expect(failure(`{${br}  "a": 1${br}  "b": 2${br}}`)).toBe("not valid JSON at line 3, column 3: Expected ',' or '}' after property value");
    }
  });

  it('passes on a message that names no place, and reads past a byte-order mark', () => {
    expect(failure('')).toBe('not valid JSON: Unexpected end of JSON input');
    // V8 gives some errors (an unexpected token) with a snippet of the text, not a position.
    expect(failure('{"a": [1, 2,]}')).toBe('not valid JSON: Unexpected token \']\', "{"a": [1, 2,]}" is not valid JSON');
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ a: 1 });
    expect(failure('\uFEFF{\n x}')).toMatch(/^not valid JSON at line 2, column 2: /);
  });
});
