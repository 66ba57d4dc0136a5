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

/**
 * Calls fn with each line of text and its 1-based number, the lines of splitLines, without making
 * the array of them all (a mesh file's millions of lines held hundreds of MB at once).
 */
export function forEachLine(text: string, fn: (line: string, number: number) => void): void {
  let start = 0, number = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13) continue;
    fn(text.slice(start, i), number++);
    if (c === 13 && text.charCodeAt(i + 1) === 10) i++;
    start = i + 1;
  }
  fn(text.slice(start), number);
}
