/** Side-by-side comparison of runs: params flattened to dotted paths, rows marked where runs differ. */

export function flatten(value: unknown, prefix = '', out: Record<string, unknown> = {}): Record<string, unknown> {
  if (value && typeof value === 'object' && !ArrayBuffer.isView(value)) {
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    if (entries.length === 0) out[prefix] = Array.isArray(value) ? '[]' : '{}';
    for (const [k, v] of entries) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  } else if (prefix) {
    out[prefix] = value;
  }
  return out;
}

export interface CompareRow {
  key: string;
  values: unknown[];
  differs: boolean;
}

/** One row per key of any record, in first-seen order; `differs` when the values are not all equal. */
export function compareRows(records: Record<string, unknown>[]): CompareRow[] {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const r of records) {
    for (const k of Object.keys(r)) {
      if (!seen.has(k)) {
        seen.add(k);
        keys.push(k);
      }
    }
  }
  return keys.map((key) => {
    const values = records.map((r) => r[key]);
    const first = JSON.stringify(values[0]);
    return { key, values, differs: values.some((v) => JSON.stringify(v) !== first) };
  });
}

/**
 * Column heads for runs: a sweep's runs share a name and differ only in their '[field=value]' suffix,
 * so that suffix is all that is shown; other names stay whole.
 */
export function distinctNames(names: string[]): string[] {
  if (names.length < 2) return names;
  let k = 0;
  while (names.every((x) => x[k] !== undefined && x[k] === names[0][k])) k++;
  const cut = names[0].lastIndexOf('[', k);
  return cut > 0 && names.every((x) => x[cut] === '[') ? names.map((x) => x.slice(cut)) : names;
}
