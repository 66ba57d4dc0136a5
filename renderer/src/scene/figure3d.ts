/**
 * The inspector's view as a figure for a paper: the 3D view rendered at a chosen size, with the
 * colour bar (its label, unit and range, or the categories with their names), a scale bar (a round
 * length at the camera's target: exact for the box centre, approximate in front and behind it in a
 * perspective view), an axis triad and a title. Drawn on a 2D canvas and saved as PNG.
 */
import { tickText } from '../components/figure';
import { categoricalCss, mapStopsCss, type ContinuousMap } from './colormap';
import type { FigureView } from './viewer';

export type FigureLegend =
  | { kind: 'range'; label: string; unit: string; min: number; max: number; map: ContinuousMap }
  | { kind: 'categories'; label: string; entries: { index: number; name: string }[] }
  | null;

export interface FigureOptions {
  width: number;
  height: number;
  title: string;
  legend: FigureLegend;
  scaleBar: boolean;
  axes: boolean;
  /** Unit of lengths, named under the scale bar. */
  lengthUnit: string;
  background: string;
}

/** The largest round length (1, 2 or 5 times a power of ten) not above `max`. */
export function roundLength(max: number): number {
  if (!(max > 0) || !Number.isFinite(max)) return 0;
  const p = 10 ** Math.floor(Math.log10(max));
  return [5, 2, 1].map((m) => m * p).find((v) => v <= max) ?? p;
}

/** Draws the figure; `render` draws the 3D view into the context at the figure's size. */
export function drawFigure(ctx: CanvasRenderingContext2D, o: FigureOptions, render: (ctx: CanvasRenderingContext2D, w: number, h: number) => FigureView): void {
  const { width: W, height: H } = o;
  const view = render(ctx, W, H);
  const dark = isDark(o.background);
  const ink = dark ? '#e8eaed' : '#1f2328';
  const u = Math.max(10, Math.round(Math.min(W, H) / 55)); // base font size in pixels
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = ink;
  ctx.strokeStyle = ink;
  if (o.title) {
    ctx.font = `600 ${Math.round(u * 1.2)}px Helvetica, Arial, sans-serif`;
    ctx.fillText(o.title, u, u * 1.8);
  }
  ctx.font = `${u}px Helvetica, Arial, sans-serif`;
  if (o.legend?.kind === 'range') drawColourBar(ctx, o.legend, W, H, u);
  else if (o.legend?.kind === 'categories') drawCategories(ctx, o.legend, W, u, ink);
  let bottom = H - u * 1.2;
  if (o.scaleBar && view.pxPerUnit > 0) {
    const len = roundLength((W * 0.25) / view.pxPerUnit);
    const px = len * view.pxPerUnit;
    const y = bottom;
    ctx.lineWidth = Math.max(2, u / 4);
    ctx.beginPath();
    ctx.moveTo(u, y);
    ctx.lineTo(u + px, y);
    ctx.moveTo(u, y - u * 0.5);
    ctx.lineTo(u, y + u * 0.2);
    ctx.moveTo(u + px, y - u * 0.5);
    ctx.lineTo(u + px, y + u * 0.2);
    ctx.stroke();
    ctx.fillText(`${tickText(len)} ${o.lengthUnit} (at the box centre)`, u, y - u * 0.8);
    bottom -= u * 2.6;
  }
  if (o.axes) {
    const r = u * 3;
    const cx = u + r;
    const cy = bottom - r;
    const colours = { x: '#d9480f', y: '#2b8a3e', z: '#2563c9' };
    ctx.lineWidth = Math.max(2, u / 5);
    for (const a of ['x', 'y', 'z'] as const) {
      const [dx, dy] = view.axes[a];
      ctx.strokeStyle = ctx.fillStyle = colours[a];
      ctx.beginPath();
      ctx.moveTo(cx, cy);
      ctx.lineTo(cx + dx * r, cy + dy * r);
      ctx.stroke();
      ctx.fillText(a, cx + dx * (r + u * 0.7) - u * 0.3, cy + dy * (r + u * 0.7) + u * 0.35);
    }
  }
}

function drawColourBar(ctx: CanvasRenderingContext2D, l: Extract<FigureLegend, { kind: 'range' }>, W: number, H: number, u: number): void {
  const bw = u * 1.2;
  const bh = H * 0.45;
  const x = W - u * 7;
  const y = (H - bh) / 2;
  const g = ctx.createLinearGradient(0, y + bh, 0, y);
  const stops = mapStopsCss(l.map, 32);
  stops.forEach((c, i) => g.addColorStop(i / (stops.length - 1), c));
  ctx.fillStyle = g;
  ctx.fillRect(x, y, bw, bh);
  const ink = ctx.strokeStyle;
  ctx.lineWidth = 1;
  ctx.strokeRect(x, y, bw, bh);
  ctx.fillStyle = ink;
  ctx.textAlign = 'left';
  const ticks = [l.min, (l.min + l.max) / 2, l.max];
  ticks.forEach((v, i) => {
    const ty = y + bh - (i / 2) * bh;
    ctx.beginPath();
    ctx.moveTo(x + bw, ty);
    ctx.lineTo(x + bw + u * 0.4, ty);
    ctx.stroke();
    ctx.fillText(tickText(Number(v.toPrecision(4))), x + bw + u * 0.6, ty + u * 0.35);
  });
  // the label, rotated along the bar's left side
  ctx.save();
  ctx.translate(x - u * 0.6, y + bh / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.fillText(l.unit ? `${l.label} (${l.unit})` : l.label, 0, 0);
  ctx.restore();
  ctx.textAlign = 'left';
}

function drawCategories(ctx: CanvasRenderingContext2D, l: Extract<FigureLegend, { kind: 'categories' }>, W: number, u: number, ink: string): void {
  const entries = l.entries.slice(0, 16);
  const widest = Math.max(ctx.measureText(l.label).width, ...entries.map((e) => ctx.measureText(e.name).width + u * 1.6));
  const x = W - widest - u * 1.5;
  let y = u * 3;
  ctx.fillStyle = ink;
  ctx.font = `600 ${u}px Helvetica, Arial, sans-serif`;
  ctx.fillText(l.label, x, y);
  ctx.font = `${u}px Helvetica, Arial, sans-serif`;
  for (const e of entries) {
    y += u * 1.5;
    ctx.fillStyle = categoricalCss(e.index);
    ctx.fillRect(x, y - u * 0.85, u, u);
    ctx.fillStyle = ink;
    ctx.fillText(e.name, x + u * 1.6, y);
  }
}

function isDark(css: string): boolean {
  const m = /^#([0-9a-f]{6})$/i.exec(css.trim());
  if (!m) return false;
  const v = parseInt(m[1], 16);
  return 0.2126 * ((v >> 16) & 255) + 0.7152 * ((v >> 8) & 255) + 0.0722 * (v & 255) < 128;
}
