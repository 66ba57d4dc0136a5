import { splitLines } from './lines';

/**
 * JSON text a user wrote (a spec file, a raw volume's header), parsed with errors a user can act on:
 * where JSON.parse stopped as an editor shows it, line and column, since V8 says only 'in JSON at
 * position P', a character count no one can find in an indented file. A byte-order mark (Windows
 * editors save 'UTF-8 with BOM') is no part of the JSON; JSON.parse refused it with an invisible
 * "Unexpected token '\uFEFF'". Errors read 'not valid JSON at line L, column C: <what>': callers
 * say which text.
 */
export function parseJsonText(text: string): unknown {
  const json = text.replace(/^\uFEFF/, '');
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new Error(`not valid JSON${errorPlace(json, (e as Error).message)}`);
  }
}

/** ' at line L, column C: <what>' from V8's message, or ': <message>' when it names no position. */
function errorPlace(text: string, message: string): string {
  const m = /^(.*?)(?: in JSON)? at position (\d+)/.exec(message);
  if (!m) return `: ${message}`;
  // Lines as an editor counts them: ended by LF, CRLF or CR alone.
  const lines = splitLines(text.slice(0, Number(m[2])));
  return ` at line ${lines.length}, column ${lines[lines.length - 1].length + 1}: ${m[1]}`;
}
