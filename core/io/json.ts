import { visit } from 'jsonc-parser';
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

/**
 * Walks JSON text by its grammar (jsonc-parser's visitor, comments and trailing commas refused as
 * JSON refuses them): the offset of the first character where it stops being JSON, or the first field
 * written twice in one object (its dotted path, the offsets of both), whichever comes first; or null.
 */
function scanJson(text: string): { errorAt: number } | { duplicate: { path: string; at: number; first: number } } | null {
  let found: { errorAt: number } | { duplicate: { path: string; at: number; first: number } } | null = null;
  // The field names of each open object so far, with the offset of each.
  const open: Map<string, number>[] = [];
  visit(text, {
    onObjectBegin: () => void open.push(new Map()),
    onObjectEnd: () => void open.pop(),
    onObjectProperty: (name, offset, _length, _line, _column, pathOfObject) => {
      const seen = open[open.length - 1];
      const first = seen.get(name);
      if (first === undefined) seen.set(name, offset);
      else found ??= { duplicate: { path: [...pathOfObject(), name].join('.'), at: offset, first } };
    },
    onError: (_error, offset) => void (found ??= { errorAt: offset }),
  }, { disallowComments: true, allowTrailingComma: false });
  return found;
}
