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
    expect(parseJsonText('\uFEFF{"a": 1}')).toEqual({ a: 1 });
    expect(failure('\uFEFF{\n x}')).toMatch(/^not valid JSON at line 2, column 2: /);
  });

  it('places the errors V8 gives with a snippet only (an unexpected token), saying what JSON wants instead', () => {
    expect(failure('{"a": [1, 2,]}')).toBe("not valid JSON at line 1, column 13: Unexpected token ']' (a comma before ']' or '}' starts an entry that is not there: remove it)");
    // Python's json.dump writes NaN and Infinity for float('nan') and float('inf'); JSON has neither.
    expect(failure('{\n  "params": {\n    "reboundProbability": NaN\n  }\n}')).toBe("not valid JSON at line 3, column 27: Unexpected token 'N' (JSON has no NaN or Infinity: write a number)");
    expect(failure('{"a":\n Infinity}')).toBe("not valid JSON at line 2, column 2: Unexpected token 'I' (JSON has no NaN or Infinity: write a number)");
    expect(failure("{'a': 1}")).toMatch(/^not valid JSON at line 1, column 2: /);
    expect(failure("{\"a\": 'x'}")).toBe("not valid JSON at line 1, column 7: Unexpected token ''' (strings and field names take double quotes: \"x\")");
    expect(failure('{"a": .5}')).toBe("not valid JSON at line 1, column 7: Unexpected token '.' (a number starts with a digit or '-': 0.5, not .5)");
    expect(failure('{"a": [1,,2]}')).toMatch(/^not valid JSON at line 1, column 10: Unexpected token ','/);
    expect(failure('{"a": 1} // note')).toMatch(/^not valid JSON at line 1, column 10: /);
  });

  it('refuses a field written twice in one object, naming it and both places (a reader keeps one silently)', () => {
    const spec = '{\n  "engine": "voxel",\n  "params": {\n    "reboundProbability": 0.1,\n    "box": { "resolution": 20 },\n    "reboundProbability": 0.9\n  }\n}';
    expect(failure(spec)).toBe("not valid JSON at line 6, column 5: field 'params.reboundProbability' is written a second time (first at line 4, column 5): a JSON reader keeps only one of the two values; write it once");
    expect(failure('{"name": "a", "name": "b"}')).toBe("not valid JSON at line 1, column 15: field 'name' is written a second time (first at line 1, column 2): a JSON reader keeps only one of the two values; write it once");
    // In a list's object, and the same name written with an escape.
    expect(failure('{"types": [{}, {"size": 1, "s\\u0069ze": 2}]}')).toMatch(/^not valid JSON at line 1, column 28: field 'types\.1\.size' is written a second time \(first at line 1, column 17\)/);
    // The same name in different objects, and strings that look like keys, are fine.
    expect(parseJsonText('{"a": {"x": 1}, "b": {"x": 2}, "c": ["x", "x"], "d": "\\"x\\": 1, \\"x\\": 2"}')).toEqual({ a: { x: 1 }, b: { x: 2 }, c: ['x', 'x'], d: '"x": 1, "x": 2' });
  });
});
