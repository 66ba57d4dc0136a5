/**
 * The lines of a text file as users' tools write them: CRLF (Windows), LF (Unix) and CR alone
 * (classic Mac OS, Excel for Mac's older 'CSV', old mesh exporters), mixed too. Splitting at LF
 * alone made a CR-only file one line: its header ran into its data.
 */
const LINE_BREAK = /\r\n?|\n/;

export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}

/** splitLines(text).length without making the lines (to bound an import's memory before it runs). */
export function countLines(text: string): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  // A CR not followed by LF ends a line too (CR alone: classic Mac).
  for (let at = text.indexOf('\r'); at >= 0; at = text.indexOf('\r', at + 1)) if (text.charCodeAt(at + 1) !== 10) lines++;
  return lines;
}
