/**
 * Plots as files: a line or bar plot as a standalone SVG (title, axis labels, ticks, legend; light
 * background, as printed), the same figure as PNG (the SVG rasterised at a chosen scale), and its
 * data as CSV (one x column, one column per series, on the union of the series' x values). Every
 * plot of the app exports through here, so the three files of a plot always agree.
 */
import { alignSeries, type PlotSeries } from './plotData';
import { errorBarExtent, errorBars, errorBarsNote } from './spread';

export interface Figure {
  title?: string;
  xLabel: string;
  yLabel: string;
  series: PlotSeries[];
  bars?: boolean;
  /** CSS pixels (the PNG multiplies them by its scale). */
  width: number;
  height: number;
}

/** Line colours of exported figures: the light theme's plot palette (theme.css --plot-1..6). */
export const FIGURE_COLOURS = ['#2563c9', '#d9480f', '#2b8a3e', '#862e9c', '#c2255c', '#0b7285'];

/** About `count` round tick values covering [min, max] (steps of 1, 2 or 5 times a power of ten). */
export function niceTicks(min: number, max: number, count = 5): number[] {
  if (!Number.isFinite(min) || !Number.isFinite(max)) return [];
  if (max === min) return [min];
  const raw = (max - min) / Math.max(1, count);
  const p = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? 10 * p;
  const out: number[] = [];
  for (let v = Math.ceil(min / step) * step; v <= max + step * 1e-9; v += step) out.push(Number(v.toPrecision(12)));
  return out;
}

/** A tick or legend number: short, no float noise (0.30000000000000004 → 0.3). */
export function tickText(v: number): string {
  if (v === 0) return '0';
  const a = Math.abs(v);
  if (a >= 1e6 || a < 1e-3) return v.toExponential(2).replace(/\.?0+e/, 'e');
  return String(Number(v.toPrecision(6)));
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function range(values: Iterable<number | null>): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v === null || !Number.isFinite(v)) continue;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo > hi) return [0, 1];
  if (lo === hi) return [lo - (Math.abs(lo) || 1) * 0.5, hi + (Math.abs(hi) || 1) * 0.5];
  return [lo, hi];
}

/** The figure as a standalone SVG document. */
export function plotSvg(f: Figure): string {
  const [xs, ...ys] = alignSeries(f.series);
  const W = f.width;
  const H = f.height;
  // The legend (several series) is a band under the x label, entries flowing in rows, so that it
  // never covers data.
  const legend = legendLayout(f.series.length > 1 ? f.series.map((s) => s.name) : [], W - 80);
  // Replicates: lines under the legend say how many runs each point holds and what its bars span.
  const note = wrapText(errorBarsNote(f.series), W - 80);
  const m = { left: 64, right: 16, top: f.title ? 30 : 14, bottom: 46 + legend.height + note.length * LEGEND_ROW };
  const pw = W - m.left - m.right;
  const ph = H - m.top - m.bottom;
  let [x0, x1] = range(xs);
  if (f.bars && xs.length) {
    const half = xs.length > 1 ? (xs[1] - xs[0]) / 2 : 0.5;
    x0 -= half;
    x1 += half;
  } else {
    // a little room at the ends, so that the first and last points do not sit on the frame
    const pad = (x1 - x0) * 0.02;
    x0 -= pad;
    x1 += pad;
  }
  const yr = range([...ys.flatMap((y) => Array.from(y)), ...(errorBarExtent(f.series) ?? [])]);
  const ypad = (yr[1] - yr[0]) * 0.05;
  const [y0, y1] = f.bars ? [Math.min(0, yr[0]), Math.max(0, yr[1]) + ypad] : [yr[0] - ypad, yr[1] + ypad];
  const X = (v: number) => m.left + ((v - x0) / (x1 - x0)) * pw;
  const Y = (v: number) => m.top + ph - ((v - y0) / (y1 - y0)) * ph;
  const n = (v: number) => v.toFixed(2);
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="Helvetica, Arial, sans-serif" font-size="11">`);
  out.push(`<rect width="${W}" height="${H}" fill="#ffffff"/>`);
  if (f.title) out.push(`<text x="${m.left}" y="18" font-size="13" font-weight="bold" fill="#1f2328">${esc(f.title)}</text>`);
  // grid and ticks
  for (const t of niceTicks(x0, x1, Math.max(2, Math.floor(pw / 80)))) {
    out.push(`<line x1="${n(X(t))}" y1="${m.top}" x2="${n(X(t))}" y2="${m.top + ph}" stroke="#e3e6ea"/>`);
    out.push(`<text x="${n(X(t))}" y="${m.top + ph + 15}" text-anchor="middle" fill="#3d4650">${tickText(t)}</text>`);
  }
  for (const t of niceTicks(y0, y1, Math.max(2, Math.floor(ph / 50)))) {
    out.push(`<line x1="${m.left}" y1="${n(Y(t))}" x2="${m.left + pw}" y2="${n(Y(t))}" stroke="#e3e6ea"/>`);
    out.push(`<text x="${m.left - 6}" y="${n(Y(t) + 4)}" text-anchor="end" fill="#3d4650">${tickText(t)}</text>`);
  }
  out.push(`<rect x="${m.left}" y="${m.top}" width="${pw}" height="${ph}" fill="none" stroke="#5f6b78"/>`);
  out.push(`<text x="${m.left + pw / 2}" y="${m.top + ph + 34}" text-anchor="middle" fill="#1f2328">${esc(f.xLabel)}</text>`);
  out.push(`<text transform="translate(14 ${m.top + ph / 2}) rotate(-90)" text-anchor="middle" fill="#1f2328">${esc(f.yLabel)}</text>`);
  // data
  ys.forEach((y, k) => {
    const colour = FIGURE_COLOURS[k % FIGURE_COLOURS.length];
    if (f.bars) {
      const w = xs.length > 1 ? ((xs[1] - xs[0]) / (x1 - x0)) * pw * 0.8 : pw * 0.5;
      for (let i = 0; i < xs.length; i++) {
        const v = y[i];
        if (v === null || !Number.isFinite(v)) continue;
        const top = Math.min(Y(v), Y(0));
        out.push(`<rect x="${n(X(xs[i]) - w / 2)}" y="${n(top)}" width="${n(w)}" height="${n(Math.abs(Y(v) - Y(0)))}" fill="${colour}" fill-opacity="0.45" stroke="${colour}"/>`);
      }
      return;
    }
    // Gaps (no sample at an x of another series) are bridged, as the app's plots draw them.
    const points: [number, number][] = [];
    for (let i = 0; i < xs.length; i++) {
      const v = y[i];
      if (v !== null && Number.isFinite(v)) points.push([X(xs[i]), Y(v)]);
    }
    if (points.length) out.push(`<polyline fill="none" stroke="${colour}" stroke-width="1.6" points="${points.map(([px, py]) => `${n(px)},${n(py)}`).join(' ')}"/>`);
    // Few points (a sweep): mark each, so that a reader sees where the samples are.
    if (points.length <= 30) for (const [px, py] of points) out.push(`<circle cx="${n(px)}" cy="${n(py)}" r="2.2" fill="${colour}"/>`);
    for (const b of errorBars(f.series[k])) {
      const [bx, lo, hi] = [n(X(b.x)), n(Y(b.lo)), n(Y(b.hi))];
      const [c0, c1] = [n(X(b.x) - ERROR_BAR_CAP), n(X(b.x) + ERROR_BAR_CAP)];
      out.push(`<path class="error-bar" d="M${bx} ${lo}V${hi}M${c0} ${lo}H${c1}M${c0} ${hi}H${c1}" fill="none" stroke="${colour}" stroke-width="1.2"/>`);
    }
  });
  // legend band under the x label
  const top = m.top + ph + 44;
  legend.entries.forEach((e, k) => {
    const x = m.left + e.x;
    const y = top + e.row * LEGEND_ROW + 10;
    out.push(`<line x1="${x}" y1="${y - 4}" x2="${x + 14}" y2="${y - 4}" stroke="${FIGURE_COLOURS[k % FIGURE_COLOURS.length]}" stroke-width="2"/>`);
    out.push(`<text x="${x + 18}" y="${y}" fill="#1f2328">${esc(f.series[k].name)}</text>`);
  });
  note.forEach((line, i) => out.push(`<text class="error-bars-note" x="${m.left}" y="${top + legend.height + i * LEGEND_ROW + 10}" fill="#3d4650">${esc(line)}</text>`));
  out.push('</svg>');
  return out.join('\n');
}

const LEGEND_ROW = 16;
/** Half the width of an error bar's caps (px), as the app's plots draw them. */
export const ERROR_BAR_CAP = 3;

/** `text` in lines of at most `width` px (about 6.2 px a character, as the legend), broken between words; [] for ''. */
function wrapText(text: string, width: number): string[] {
  const most = Math.max(10, Math.floor(width / 6.2));
  const lines: string[] = [];
  for (const word of text.split(' ').filter((w) => w)) {
    const last = lines.length - 1;
    if (last >= 0 && lines[last].length + 1 + word.length <= most) lines[last] += ` ${word}`;
    else lines.push(word);
  }
  return lines;
}

/** Where each legend entry goes (x offset, row) in rows `width` wide, and the band's height. */
function legendLayout(names: string[], width: number): { entries: { x: number; row: number }[]; height: number } {
  const entries: { x: number; row: number }[] = [];
  let x = 0;
  let row = 0;
  for (const n of names) {
    const w = 18 + n.length * 6.2 + 16; // marker, text at about 6.2 px a character (11 px sans), gap
    if (x > 0 && x + w > width) {
      row++;
      x = 0;
    }
    entries.push({ x, row });
    x += w;
  }
  return { entries, height: names.length ? (row + 1) * LEGEND_ROW + 6 : 0 };
}

/** A CSV field: quoted (its quotes doubled) when it holds a quote, a comma or a line break. */
export function csvField(v: string): string {
  return /[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

/**
 * The plotted data: x, then one column per series; empty where a series has no sample at that x.
 * Points with spreads (replicates) are written one a row instead, each with its line, x and the
 * runs' n, mean, sd, min and max (sd empty for one run), as a statistics package reads them.
 */
export function seriesCsv(series: PlotSeries[], xLabel: string): string {
  if (series.some((s) => s.spread)) return spreadCsv(series, xLabel);
  const [xs, ...ys] = alignSeries(series);
  const lines = [[xLabel, ...series.map((s) => s.name)].map(csvField).join(',')];
  for (let i = 0; i < xs.length; i++) {
    lines.push([String(xs[i]), ...ys.map((y) => (y[i] === null || y[i] === undefined || !Number.isFinite(y[i] as number) ? '' : String(y[i])))].join(','));
  }
  return lines.join('\n') + '\n';
}

function spreadCsv(series: PlotSeries[], xLabel: string): string {
  const lines = [['line', xLabel, 'n', 'mean', 'sd', 'min', 'max'].map(csvField).join(',')];
  for (const s of series) {
    for (let i = 0; i < s.x.length; i++) {
      const p = s.spread?.[i];
      const cells = p ? [p.n, p.mean, p.sd ?? '', p.min, p.max] : ['', s.y[i], '', '', ''];
      lines.push([csvField(s.name), String(s.x[i]), ...cells.map(String)].join(','));
    }
  }
  return lines.join('\n') + '\n';
}

/** Rasterises an SVG document to PNG at `scale` device pixels per CSS pixel (browser only). */
export async function svgToPng(svg: string, width: number, height: number, scale = 2): Promise<Blob> {
  const url = URL.createObjectURL(new Blob([svg], { type: 'image/svg+xml' }));
  try {
    const img = new Image();
    await new Promise<void>((resolve, reject) => {
      img.onload = () => resolve();
      img.onerror = () => reject(new Error('the figure could not be drawn'));
      img.src = url;
    });
    const canvas = document.createElement('canvas');
    canvas.width = Math.round(width * scale);
    canvas.height = Math.round(height * scale);
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('no 2D canvas to draw the figure on');
    ctx.drawImage(img, 0, 0, canvas.width, canvas.height);
    return await new Promise<Blob>((resolve, reject) => canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('the figure could not be encoded as PNG'))), 'image/png'));
  } finally {
    URL.revokeObjectURL(url);
  }
}

/** Saves a blob as a file through a temporary link. */
export function downloadBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = fileName;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A file name from a title: letters, digits, '.', '-' and '_' only. */
export function fileStem(title: string): string {
  return title.trim().replace(/[^\w.-]+/g, '_').replace(/^_+|_+$/g, '') || 'plot';
}
