/**
 * Particle tables as CSV and back. A sphere table (it has an `r` column) is written as
 * `x,y,z,r,type` first (the order PFC, YADE and PoreSpy scripts expect), then its other columns
 * (a ball mill's speed, a coordination) in table order; its `type` is the category its declaration
 * names when it has no `type` column (a stacking's size class), so that the import reads it back.
 * Any other table writes all its columns in table order. Numbers use the shortest form that parses
 * back to the same value of the column's type (decimal.ts: a float32 column's own digits). A NaN
 * marks a value a particle does not have (the principal axis of a sphere, or of a particle under 8
 * voxels: core/analysis/orientation.ts principalTilts) and is an empty field: 'NaN' is text to a
 * spreadsheet (the column no longer sums or sorts as numbers), an empty field is what spreadsheets
 * leave blank and what pandas (read_csv) and R (read.csv) read as missing in a number column.
 */
import type { ColumnTable, ParticleTableSpec } from '../common/engine';
import { isFloat32, type TextBytes } from './decimal';
import { splitLines } from './lines';

export function isSphereTable(table: ColumnTable): boolean {
  return ['x', 'y', 'z', 'r'].every((c) => c in table.columns);
}

/** Columns a CSV export of this table writes, in order. */
export function csvColumns(table: ColumnTable): string[] {
  return csvSources(table).map(([name]) => name);
}

/**
 * [CSV column, table column] in the order written. A sphere table without a `type` column writes
 * the category column its declaration names (meta.particleTable.category) as `type`, once.
 */
function csvSources(table: ColumnTable): [string, string][] {
  const names = Object.keys(table.columns);
  if (!isSphereTable(table)) return names.map((n) => [n, n]);
  const category = (table.meta?.particleTable as ParticleTableSpec | undefined)?.category?.column;
  const type = 'type' in table.columns ? 'type' : category && category in table.columns ? category : undefined;
  const first: [string, string][] = [['x', 'x'], ['y', 'y'], ['z', 'z'], ['r', 'r']];
  if (type) first.push(['type', type]);
  return [...first, ...names.filter((n) => !first.some(([, source]) => source === n)).map((n): [string, string] => [n, n])];
}

/**
 * Appends the CSV text of rows [start, end) of the table to out; the header line when `header` (by
 * default when start is 0: a table read in blocks of rows has it before its first block only).
 */
export function tableToCsv(out: TextBytes, table: ColumnTable, start = 0, end = rowCount(table), header = start === 0): void {
  const sources = csvSources(table);
  const cols = sources.map(([, source]) => table.columns[source]);
  const float32 = cols.map(isFloat32);
  if (header) out.text(sources.map(([name]) => name).join(',') + '\n');
  for (let i = start; i < end; i++) {
    for (let c = 0; c < cols.length; c++) {
      if (c) out.byte(44);
      const v = cols[c][i];
      // NaN: a value the particle does not have (a sphere's principal axis), an empty field (above).
      if (v !== v) continue;
      if (float32[c]) out.float32(v);
      else out.number(v);
    }
    out.byte(10);
  }
}

export function rowCount(table: ColumnTable): number {
  const first = Object.values(table.columns)[0];
  return first ? first.length : 0;
}

/** The columns of a sphere table (sphereCsvToTable, plus the coordination core/analysis adds). */
export const SPHERE_TABLE: ParticleTableSpec = {
  name: 'spheres',
  centre: ['x', 'y', 'z'],
  size: [{ column: 'r', is: 'radius' }],
  glyph: { kind: 'sphere' },
  id: 'id',
  category: { column: 'type', label: 'Sphere type' },
  quantities: [{ column: 'coordination', label: 'Coordination number' }],
};

/**
 * Text of the file quoted in an error: at most 60 characters, control characters as '?'. A binary
 * or one-line file otherwise put its whole first line (megabytes) into the message.
 */
function excerpt(s: string): string {
  const clean = s.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > 60 ? `${clean.slice(0, 57)}…` : clean;
}

/**
 * Parses a sphere CSV (a header line naming at least x, y, z and r; `type` optional; extra columns
 * ignored) into a sphere table. Errors name the line and column so a user can fix the file. A CSV
 * without a `type` column gives a table without one: its spheres' classes are unknown (a stacking
 * CSV exported before its class was written as type), so the inspector offers no colouring by type
 * and the exports write none, rather than class 0 for every sphere. `progress` is told the rows read
 * of all every 65,536 rows (10⁶ rows take a second or two).
 */
export function sphereCsvToTable(text: string, progress: (done: number, total: number) => void = () => {}): ColumnTable {
  return parseSphereCsv(text, progress).table;
}

/**
 * sphereCsvToTable's table with the 1-based line numbers of the CSV's header and data lines (blank
 * lines and # comments skipped: entry 0 is the header's line, entry i the line of data row i), for
 * errors found later about a row (main/services/imports.ts checkSphereSet) to name its line. One
 * split of the text: splitting it again for the numbers took 0.2 s and 10⁶ strings for 10⁶ spheres.
 */
export function parseSphereCsv(text: string, progress: (done: number, total: number) => void = () => {}): { table: ColumnTable; lineNumbers: Uint32Array } {
  const all = splitLines(text);
  const lineNumbers = csvLineNumbers(all);
  const lines = Array.from(lineNumbers, (n) => all[n - 1]);
  if (lines.length === 0) throw new Error('sphere CSV is empty: expected a header line x,y,z,r[,type]');
  // Excel quotes a cell holding a line break and keeps the break: the line splitting below cannot follow it.
  const fields = (k: number): string[] => {
    const f = csvFields(lines[k]);
    if (!f) throw new Error(`sphere CSV line ${lineNumbers[k]}: a quoted field is not closed on its line (a line break inside quotes?); each sphere must be on one line`);
    return f;
  };
  const header = fields(0).map((h) => h.trim().toLowerCase());
  const index = (c: string) => header.indexOf(c);
  // Excel in many locales writes ';' between fields (and decimal commas), tools often tabs: say so, not only 'lacks x'.
  const namesBy = (c: string) => lines[0].split(c).map((h) => h.trim().replace(/^"(.*)"$/, '$1').toLowerCase());
  const separator = header.length === 1 ? [';', '\t'].find((c) => ['x', 'y', 'z', 'r'].every((n) => namesBy(c).includes(n))) : undefined;
  if (separator) throw new Error(`sphere CSV header '${excerpt(lines[0])}' is separated by ${separator === ';' ? "';'" : 'tabs'}: fields must be separated by commas (x,y,z,r[,type]), numbers written with a decimal point`);
  for (const c of ['x', 'y', 'z', 'r']) {
    if (index(c) < 0) throw new Error(`sphere CSV header '${excerpt(lines[0])}' lacks column '${c}' (needs x,y,z,r and optionally type)`);
  }
  const n = lines.length - 1;
  const x = new Float64Array(n), y = new Float64Array(n), z = new Float64Array(n), r = new Float64Array(n);
  const id = new Uint32Array(n);
  const [ix, iy, iz, ir, it] = ['x', 'y', 'z', 'r', 'type'].map(index);
  const type = it >= 0 ? new Uint16Array(n) : null;
  for (let i = 0; i < n; i++) {
    if ((i & 0xffff) === 0) progress(i, n);
    const cells = fields(i + 1);
    // More fields than the header names: the columns are misaligned (decimal commas, '1,5' for 1.5), so no field can be trusted.
    if (cells.length > header.length) {
      throw new Error(`sphere CSV line ${lineNumbers[i + 1]} has ${cells.length} fields, the header ${header.length} (${excerpt(lines[0])}); decimal commas? Numbers need a decimal point`);
    }
    const num = (k: number, col: string) => {
      const v = Number(cells[k]);
      if (cells[k] === undefined || cells[k].trim() === '' || !Number.isFinite(v) || (Number.isInteger(v) && isRadixLiteral(cells[k]))) {
        throw new Error(`sphere CSV line ${lineNumbers[i + 1]}: column '${col}' is '${excerpt(cells[k] ?? '')}', expected a finite number`);
      }
      return v;
    };
    x[i] = num(ix, 'x'); y[i] = num(iy, 'y'); z[i] = num(iz, 'z'); r[i] = num(ir, 'r');
    if (r[i] <= 0) throw new Error(`sphere CSV line ${lineNumbers[i + 1]}: radius r must be > 0, got ${r[i]}`);
    if (type) {
      const t = num(it, 'type');
      if (!Number.isInteger(t) || t < 0 || t > 65535) throw new Error(`sphere CSV line ${lineNumbers[i + 1]}: type must be an integer in [0, 65535], got ${t}`);
      type[i] = t;
    }
    id[i] = i;
  }
  progress(n, n);
  return { table: { kind: 'table', name: SPHERE_TABLE.name, columns: { id, ...(type ? { type } : {}), x, y, z, r }, meta: { particleTable: SPHERE_TABLE } }, lineNumbers };
}

/**
 * '0x10', '0b11', '0o7' (spaces around allowed): Number() reads them as whole numbers, which no CSV
 * writer means. Asked only of whole numbers, so the fractional coordinates of a sphere set never pay.
 */
function isRadixLiteral(cell: string): boolean {
  let p = 0;
  while (cell.charCodeAt(p) <= 32) p++;
  const c = cell.charCodeAt(p + 1) | 32;
  return cell.charCodeAt(p) === 48 && (c === 120 || c === 98 || c === 111);
}

/**
 * The fields of one CSV line. A field may be quoted (RFC 4180; "" inside is a quote), as R's
 * write.csv writes every header name and Excel a field with a comma; lines without quotes split fast.
 * Null when a quote is still open at the end of the line.
 */
function csvFields(line: string): string[] | null {
  if (!line.includes('"')) return line.split(',');
  const out: string[] = [];
  let field = '', quoted = false;
  for (let k = 0; k < line.length; k++) {
    const ch = line[k];
    if (quoted) {
      if (ch !== '"') field += ch;
      else if (line[k + 1] === '"') { field += '"'; k++; }
      else quoted = false;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') { out.push(field); field = ''; }
    else field += ch;
  }
  out.push(field);
  return quoted ? null : out;
}

/** The 1-based line numbers of a CSV's header and data lines, as parseSphereCsv gives them. */
function csvLineNumbers(lines: string[]): Uint32Array {
  const out: number[] = [];
  lines.forEach((l, i) => {
    if (l.trim() !== '' && !l.startsWith('#')) out.push(i + 1);
  });
  return Uint32Array.from(out);
}
