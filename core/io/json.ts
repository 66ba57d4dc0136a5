import { splitLines } from './lines';

/**
 * JSON text a user wrote (a spec file, a raw volume's header), parsed with errors a user can act on:
 * where JSON.parse stopped as an editor shows it, line and column, since V8 says only 'in JSON at
 * position P', a character count no one can find in an indented file, and for an unexpected token
 * (NaN, a single quote, a comma before ']') not even that. A byte-order mark (Windows editors save
 * 'UTF-8 with BOM') is no part of the JSON; JSON.parse refused it with an invisible
 * "Unexpected token '\uFEFF'". A field written twice in one object is refused too: JSON.parse keeps
 * the last value without a word, so a spec edited in one place and not in the other ran with the
 * value the user did not mean. Errors read 'not valid JSON at line L, column C: <what>': callers
 * say which text.
 */
export function parseJsonText(text: string): unknown {
  const json = text.replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (e) {
    throw new Error(`not valid JSON${errorPlace(json, (e as Error).message)}`);
  }
  const found = scanJson(json);
  if (found && 'duplicate' in found) {
    const { path, at, first } = found.duplicate;
    throw new Error(`not valid JSON at ${lineColumn(json, at)}: field '${path}' is written a second time (first at ${lineColumn(json, first)}): a JSON reader keeps only one of the two values; write it once`);
  }
  return value;
}

/** 'line L, column C' of a character offset, lines as an editor counts them: ended by LF, CRLF or CR alone. */
function lineColumn(text: string, offset: number): string {
  const lines = splitLines(text.slice(0, offset));
  return `line ${lines.length}, column ${lines[lines.length - 1].length + 1}`;
}

/** ' at line L, column C: <what>' from V8's message, or ': <message>' when neither it nor scanJson places it. */
function errorPlace(text: string, message: string): string {
  const m = /^(.*?)(?: in JSON)? at position (\d+)/.exec(message);
  if (m) return ` at ${lineColumn(text, Number(m[2]))}: ${m[1]}`;
  // V8 gives an unexpected token with a snippet of the text, not its place: the scan finds it.
  const found = /^Unexpected token/.test(message) ? scanJson(text) : null;
  if (!found || !('errorAt' in found)) return `: ${message}`;
  const at = found.errorAt, token = String.fromCodePoint(text.codePointAt(at) ?? 0);
  const hint = tokenHint(text, at);
  return ` at ${lineColumn(text, at)}: Unexpected token '${token}'${hint ? ` (${hint})` : ''}`;
}

/** What JSON wants instead of the unexpected token at `at`, for the mistakes hand-written and generated files make. */
function tokenHint(text: string, at: number): string | null {
  const c = text[at];
  if (text.startsWith('NaN', at) || text.startsWith('Infinity', at)) return 'JSON has no NaN or Infinity: write a number';
  if ((c === ']' || c === '}') && /,\s*$/.test(text.slice(Math.max(0, at - 200), at))) return "a comma before ']' or '}' starts an entry that is not there: remove it";
  if (c === "'") {
    const quoted = /^'([^'\n\r]{0,80})'/.exec(text.slice(at, at + 83));
    return `strings and field names take double quotes${quoted ? `: ${JSON.stringify(quoted[1])}` : ''}`;
  }
  const fraction = c === '.' ? /^\.\d+/.exec(text.slice(at, at + 40)) : null;
  if (fraction) return `a number starts with a digit or '-': 0${fraction[0]}, not ${fraction[0]}`;
  if (c === '/') return 'JSON has no comments: remove it';
  return null;
}

interface Container {
  object: boolean;
  /** Dotted path of the container ('' at the top), as API issues name fields. */
  path: string;
  /** An object's field names so far, with the offset of each. */
  keys: Map<string, number>;
  /** The field whose value comes next (objects), or the entry's index (arrays). */
  key: string;
  index: number;
}

/** Offset just past the string that opens at `at` (a '"'), or -1 when it does not end. */
function stringEnd(text: string, at: number): number {
  for (let from = at + 1; ;) {
    const q = text.indexOf('"', from);
    if (q < 0) return -1;
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 92) slashes++;
    if (slashes % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * Walks JSON text by its grammar: the offset of the first character where it stops being JSON, or the
 * first field written twice in one object (its dotted path, the offsets of both), or null when neither.
 */
function scanJson(text: string): { errorAt: number } | { duplicate: { path: string; at: number; first: number } } | null {
  const stack: Container[] = [];
  const join = (path: string, key: string | number) => (path === '' ? String(key) : `${path}.${key}`);
  type Want = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'next' | 'end';
  let want: Want = 'value';
  let i = 0;
  const afterValue = (): Want => (stack.length > 0 ? 'next' : 'end');
  for (;;) {
    for (let w = text.charCodeAt(i); w === 32 || w === 10 || w === 13 || w === 9; w = text.charCodeAt(++i));
    if (i >= text.length) return want === 'end' ? null : { errorAt: text.length };
    const c = text[i];
    const top = stack[stack.length - 1];
    switch (want) {
      case 'value':
      case 'valueOrClose': {
        if (want === 'valueOrClose' && c === ']') {
          stack.pop();
          i++;
          want = afterValue();
          break;
        }
        if (c === '{' || c === '[') {
          const path = top ? join(top.path, top.object ? top.key : top.index) : '';
          stack.push({ object: c === '{', path, keys: new Map(), key: '', index: 0 });
          i++;
          want = c === '{' ? 'keyOrClose' : 'valueOrClose';
          break;
        }
        if (c === '"') {
          const end = stringEnd(text, i);
          if (end < 0) return { errorAt: text.length };
          i = end;
        } else if (text.startsWith('true', i) || text.startsWith('null', i)) {
          i += 4;
        } else if (text.startsWith('false', i)) {
          i += 5;
        } else {
          // A number starts with '-' or a digit; its other characters are taken loosely (JSON.parse
          // places a malformed number itself: 'Unexpected number in JSON at position P').
          const d = text.charCodeAt(i);
          if (d !== 45 && (d < 48 || d > 57)) return { errorAt: i };
          for (let n = text.charCodeAt(++i); (n >= 48 && n <= 57) || n === 46 || n === 101 || n === 69 || n === 43 || n === 45; n = text.charCodeAt(++i));
        }
        want = afterValue();
        break;
      }
      case 'key':
      case 'keyOrClose': {
        if (want === 'keyOrClose' && c === '}') {
          stack.pop();
          i++;
          want = afterValue();
          break;
        }
        if (c !== '"') return { errorAt: i };
        const end = stringEnd(text, i);
        if (end < 0) return { errorAt: text.length };
        let key: string;
        try {
          key = JSON.parse(text.slice(i, end)) as string;
        } catch {
          return { errorAt: i };
        }
        const first = top.keys.get(key);
        if (first !== undefined) return { duplicate: { path: join(top.path, key), at: i, first } };
        top.keys.set(key, i);
        top.key = key;
        i = end;
        want = 'colon';
        break;
      }
      case 'colon':
        if (c !== ':') return { errorAt: i };
        i++;
        want = 'value';
        break;
      case 'next':
        if (c === ',') {
          i++;
          if (!top.object) top.index++;
          want = top.object ? 'key' : 'value';
        } else if (c === (top.object ? '}' : ']')) {
          stack.pop();
          i++;
          want = afterValue();
        } else {
          return { errorAt: i };
        }
        break;
      case 'end':
        return { errorAt: i };
    }
  }
}
