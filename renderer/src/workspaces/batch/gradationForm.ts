/**
 * The gradation editor's logic (GradationEditor.vue), kept apart so it is tested without a DOM:
 * reading tables pasted from a spreadsheet, turning size classes into a sieve curve and back, and
 * the curve the gradation asks for. The curve comes from the gradation's own code
 * (core/stacking/gradation.ts: classes, sieve sizes, % finer by volume), not a copy of its rules.
 */
import { askedPassing, resolveGradation, sieveSizes } from '../../../../core/stacking/gradation';
import { gradationSchema } from '../../../../core/stacking/params';

export type SearchIndex = [number, number];
export interface SizeClassRow {
  radius: number;
  fraction: number;
  af: SearchIndex;
}
export interface ClassesGradation {
  kind: 'classes';
  rang: number;
  classes: SizeClassRow[];
}
export interface SieveGradation {
  kind: 'sieve';
  sizes: number[];
  passing: number[];
  af: SearchIndex[];
}
export type Gradation = ClassesGradation | SieveGradation;

/** The a_f of the seed's small classes, for rows a paste leaves without one. */
export const DEFAULT_AF: SearchIndex = [0, 0.3];

export interface PastedTable {
  rows: number[][];
  /** Lines that held numbers but not as many as asked ('line 3: ...'). */
  errors: string[];
}

/**
 * Rows of numbers from text pasted out of a spreadsheet: cells split by tabs, semicolons, commas or
 * spaces. With tabs or semicolons a comma inside a cell is a decimal comma (European sheets).
 * Lines without a number (headers, blank lines) are left out; a line with numbers must have
 * between minCols and maxCols of them, every cell a number, else it is reported by its line number.
 */
export function parseTable(text: string, minCols: number, maxCols: number): PastedTable {
  const rows: number[][] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    const trimmed = line.trim();
    if (!trimmed || !/\d/.test(trimmed)) return;
    const cellSplit = /[\t;]/.test(trimmed) ? /\s*[\t;]\s*/ : /[\s,]+/;
    const cells = trimmed.split(cellSplit).filter((c) => c !== '');
    const values = cells.map((c) => Number(/[\t;]/.test(trimmed) ? c.replace(',', '.') : c));
    if (cells.length === 0 || values.some((v) => !Number.isFinite(v))) {
      // A header line with a number in it ('d (mm) 2 mm sieve') reads as text: skipped if no cell is a number.
      if (values.every((v) => !Number.isFinite(v))) return;
      errors.push(`line ${i + 1}: '${trimmed}' has a cell that is not a number`);
      return;
    }
    if (values.length < minCols || values.length > maxCols) {
      errors.push(`line ${i + 1}: ${values.length} number${values.length === 1 ? '' : 's'}, expected ${minCols === maxCols ? minCols : `${minCols} to ${maxCols}`}`);
      return;
    }
    rows.push(values);
  });
  return { rows, errors };
}

/** Size classes from pasted rows: radius, volume fraction[, a1, a2]. */
export function classesFromRows(rows: number[][]): SizeClassRow[] {
  return rows.map((r) => ({ radius: r[0], fraction: r[1], af: r.length >= 4 ? [r[2], r[3]] : [...DEFAULT_AF] }));
}

/**
 * A sieve curve from pasted rows: size, % passing[, a1, a2] (a_f of the segment that ends at the
 * size). A sieve analysis is often listed from the largest sieve down: rows in decreasing size are
 * taken in increasing order.
 */
export function sieveFromRows(rows: number[][]): SieveGradation {
  const ordered = rows.length > 1 && rows.every((r, i) => i === 0 || r[0] < rows[i - 1][0]) ? [...rows].reverse() : rows;
  const withAf = ordered.slice(1).filter((r) => r.length >= 4);
  return {
    kind: 'sieve',
    sizes: ordered.map((r) => r[0]),
    passing: ordered.map((r) => r[1]),
    af: withAf.length === ordered.length - 1 && withAf.length > 0 ? withAf.map((r) => [r[2], r[3]] as SearchIndex) : [[...DEFAULT_AF]],
  };
}

/** The curve a gradation asks for: % finer by volume at its sieve sizes, or why it cannot be drawn. */
export function askedCurve(g: unknown, dim: 2 | 3): { x: number[]; y: number[]; marks: number[] } | { error: string } {
  const parsed = gradationSchema.safeParse(g);
  if (!parsed.success) {
    // The engine refuses a gradation with fields it does not know, so the curve waits for them too.
    const unknownOnly = parsed.error.issues.every((i) => i.code === 'unrecognized_keys');
    return { error: unknownOnly ? 'the curve shows once the unknown fields are removed' : 'the curve shows once every cell holds a valid number' };
  }
  const p = parsed.data;
  if (p.kind === 'sieve') {
    const n = p.sizes.length;
    if (p.passing.length !== n) return { error: 'one % passing per sieve size' };
    for (let k = 1; k < n; k++) {
      if (!(p.sizes[k] > p.sizes[k - 1])) return { error: 'sieve sizes must increase' };
      if (p.passing[k] < p.passing[k - 1]) return { error: '% passing must not decrease' };
    }
    if (p.passing[0] !== 0 || p.passing[n - 1] !== 100) return { error: '% passing must run from 0 at the first size to 100 at the last' };
  } else if (!p.classes.some((c) => c.fraction > 0)) {
    return { error: 'at least one class needs a fraction > 0' };
  }
  const classes = resolveGradation(p);
  const sizes = sieveSizes(classes);
  const marks = p.kind === 'sieve' ? p.sizes : [...new Set(classes.flatMap((c) => [2 * c.rMin, 2 * c.rMax]))].sort((a, b) => a - b);
  return { x: Array.from(sizes), y: Array.from(askedPassing(classes, sizes, dim)), marks };
}

const round = (v: number, digits = 6) => Number(v.toPrecision(digits));

/**
 * Classes as a sieve curve: the sizes are the class bounds (diameters), the % passing the curve the
 * classes ask for there; each segment takes the a_f of the class it lies in (gaps between classes,
 * which hold no material, that of the class above).
 */
export function classesToSieve(g: ClassesGradation, dim: 2 | 3): SieveGradation {
  const curve = askedCurve(g, dim);
  if ('error' in curve) return { kind: 'sieve', sizes: [0.1, 0.2], passing: [0, 100], af: [[...DEFAULT_AF]] };
  const sizes = curve.marks;
  const passing = sizes.map((d) => round(curve.y[curve.x.indexOf(d)], 6));
  passing[0] = 0;
  passing[passing.length - 1] = 100;
  const rows = g.classes.filter((c) => c.fraction > 0);
  const af = sizes.slice(1).map((d, k) => {
    const mid = (sizes[k] + d) / 4;
    const inside = rows.filter((c) => c.radius * (1 - g.rang) <= mid && mid <= c.radius * (1 + g.rang));
    const above = rows.filter((c) => c.radius >= mid).sort((a, b) => a.radius - b.radius);
    return [...(inside[0] ?? above[0] ?? rows[0]).af] as SearchIndex;
  });
  return { kind: 'sieve', sizes: sizes.map((d) => round(d)), passing, af };
}

/**
 * A sieve curve as classes: one class per segment that holds material, its nominal radius the
 * segment's middle, its fraction the segment's share; rang wide enough that the classes span the
 * widest segment (Eq. 1 draws radii uniformly, as a segment does).
 */
export function sieveToClasses(g: SieveGradation): ClassesGradation {
  const classes: SizeClassRow[] = [];
  let rang = 0;
  for (let k = 0; k + 1 < g.sizes.length; k++) {
    const share = g.passing[k + 1] - g.passing[k];
    if (!(share > 0)) continue;
    const lo = g.sizes[k] / 2, hi = g.sizes[k + 1] / 2;
    rang = Math.max(rang, (hi - lo) / (hi + lo));
    classes.push({ radius: round((lo + hi) / 2), fraction: round(share), af: [...(g.af.length === 1 ? g.af[0] : g.af[k] ?? DEFAULT_AF)] as SearchIndex });
  }
  return { kind: 'classes', rang: round(Math.min(0.9, rang), 4), classes: classes.reverse() };
}
