/**
 * Numbers as text in the text exports (CSV, LAMMPS dump): every value in the shortest decimal that
 * reads back to the same value of its column's type. A float64 is what String gives; a float32
 * (a tilt angle, a trajectory position) would get the digits of its double widening from String
 * (80.74466 as 80.74465942382812): longer files and a precision the data never had.
 */
import type { ColumnTable } from '../common/engine';

type Column = ColumnTable['columns'][string];

/** 10^0 .. 10^22: the powers of ten a double holds exactly. */
const POW10 = Float64Array.from({ length: 23 }, (_, k) => 10 ** k);

/**
 * The shortest decimal that Math.fround reads back to v (v a float32 value). The nearest decimal
 * of p + 1 significant digits is at least as near as that of p digits, so reading back holds for
 * every p from the smallest on: a binary search over 1..9 (9 digits always read back). The decimals
 * are made by arithmetic (round(v·10^k) / 10^k, exact powers of ten, so the quotient is the double
 * nearest the decimal and String writes the decimal's digits): toPrecision made the export of
 * float32 columns four times slower.
 */
export function float32Text(v: number): string {
  // Whole numbers up to 2^24 (counts, whole degrees) are exact and short already; NaN and ±Infinity as String.
  if ((Number.isInteger(v) && Math.abs(v) <= 16777216) || !Number.isFinite(v)) return String(v);
  // The magnitude, so that ties round away from zero on both sides, as toPrecision does.
  const a = Math.abs(v);
  // Off by one only within a few doubles of a power of ten, where no float32 but a whole number (above) lies.
  const e = Math.floor(Math.log10(a));
  // k = p - 1 - e lies in [-e, 8 - e]: beyond 10^±22 (float32s below 1e-14 or above 1e22) by toPrecision.
  if (e < -14 || e > 22) return float32TextByPrecision(v);
  let lo = 1, hi = 9;
  while (lo < hi) {
    const p = (lo + hi) >> 1;
    if (Math.fround(nearestDecimal(a, p - 1 - e)) === a) hi = p;
    else lo = p + 1;
  }
  return (v < 0 ? '-' : '') + String(nearestDecimal(a, lo - 1 - e));
}

/** v rounded to k decimals (k < 0: to a multiple of 10^-k), |k| <= 22. */
function nearestDecimal(v: number, k: number): number {
  return k >= 0 ? Math.round(v * POW10[k]) / POW10[k] : Math.round(v / POW10[-k]) * POW10[-k];
}

/** float32Text by toPrecision, for magnitudes whose powers of ten a double does not hold exactly. */
function float32TextByPrecision(v: number): string {
  let lo = 1, hi = 9;
  while (lo < hi) {
    const p = (lo + hi) >> 1;
    if (Math.fround(Number(v.toPrecision(p))) === v) hi = p;
    else lo = p + 1;
  }
  return String(Number(v.toPrecision(lo)));
}

/** The text of a column's values: float32Text for a Float32Array, String for every other type. */
export function cellText(column: Column): (v: number) => string {
  return column instanceof Float32Array ? float32Text : String;
}

/**
 * The text of a column's values in a CSV: cellText's, with NaN as an empty field. NaN marks a value
 * a particle does not have (the principal axis of a sphere, or of a particle under 8 voxels:
 * core/analysis/orientation.ts principalTilts). 'NaN' is text to a spreadsheet (a column of numbers
 * no longer sums or sorts as numbers); an empty field is what spreadsheets leave blank and what
 * pandas (read_csv) and R (read.csv) read as their missing value in a number column.
 */
export function csvCellText(column: Column): (v: number) => string {
  const text = cellText(column);
  return (v) => (v === v ? text(v) : '');
}
