/**
 * The lines of a text file as users' tools write them: CRLF (Windows), LF (Unix) and CR alone
 * (classic Mac OS, Excel for Mac's older 'CSV', old mesh exporters), mixed too. Splitting at LF
 * alone made a CR-only file one line: its header ran into its data.
 */
export const LINE_BREAK = /\r\n?|\n/;

export function splitLines(text: string): string[] {
  return text.split(LINE_BREAK);
}
