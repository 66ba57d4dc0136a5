/**
 * Colour maps for particles and slices. Colours are written into Float32Arrays (RGBA, 0..1) for
 * Babylon's thin-instance colour buffer and into Uint8ClampedArrays for 2D slice images, so one
 * map serves both views and a particle has the same colour in the 3D view and in the slice.
 * Continuous maps: viridis and cividis (perceptually uniform; cividis also for red-green colour
 * blindness) and coolwarm (Moreland's diverging map, for quantities with a meaningful middle).
 * Each is a 256-entry table built once, so colouring a particle is a table read.
 */

/** Viridis sampled at 9 stops (perceptually uniform, readable in print and by colour-blind users). */
const VIRIDIS: readonly (readonly [number, number, number])[] = [
  [0.267, 0.005, 0.329], [0.283, 0.141, 0.458], [0.254, 0.265, 0.530], [0.207, 0.372, 0.553],
  [0.164, 0.471, 0.558], [0.128, 0.567, 0.551], [0.135, 0.659, 0.518], [0.267, 0.749, 0.441],
  [0.478, 0.821, 0.318],
];
const VIRIDIS_END: readonly [number, number, number] = [0.993, 0.906, 0.144];

/** Tableau 10: distinct hues for particle types. */
const CATEGORICAL: readonly (readonly [number, number, number])[] = [
  [0.122, 0.467, 0.706], [1.0, 0.498, 0.055], [0.173, 0.627, 0.173], [0.839, 0.153, 0.157],
  [0.580, 0.404, 0.741], [0.549, 0.337, 0.294], [0.890, 0.467, 0.761], [0.498, 0.498, 0.498],
  [0.737, 0.741, 0.133], [0.090, 0.745, 0.812],
];

/** Moreland's smooth cool-to-warm diverging map (2009), at 5 of its published stops. */
const COOLWARM: readonly (readonly [number, number, number])[] = [
  [59 / 255, 76 / 255, 192 / 255], [141 / 255, 176 / 255, 254 / 255], [221 / 255, 221 / 255, 221 / 255],
  [244 / 255, 154 / 255, 123 / 255], [180 / 255, 4 / 255, 38 / 255],
];

export type ContinuousMap = 'viridis' | 'cividis' | 'coolwarm';
export const CONTINUOUS_MAPS: { id: ContinuousMap; label: string; description: string }[] = [
  { id: 'viridis', label: 'viridis', description: 'perceptually uniform, dark blue to yellow' },
  { id: 'cividis', label: 'cividis', description: 'perceptually uniform and readable with red-green colour blindness' },
  { id: 'coolwarm', label: 'coolwarm (diverging)', description: 'diverging, blue to grey to red: for quantities with a meaningful middle' },
];

const LUT_SIZE = 256;

/** Linear interpolation between evenly spaced stops. */
function fromStops(stops: readonly (readonly [number, number, number])[], t: number): [number, number, number] {
  const f = t * (stops.length - 1);
  const i = Math.min(stops.length - 2, Math.floor(f));
  const w = f - i;
  const a = stops[i];
  const b = stops[i + 1];
  return [a[0] + (b[0] - a[0]) * w, a[1] + (b[1] - a[1]) * w, a[2] + (b[2] - a[2]) * w];
}

/** Cividis (Nuñez, Anderton & Renslow 2018) as the degree-5 polynomial fit d3 uses, in 0..1. */
function cividisAt(t: number): [number, number, number] {
  const c = (v: number) => Math.max(0, Math.min(255, v)) / 255;
  return [
    c(-4.54 - t * (35.34 - t * (2381.73 - t * (6402.7 - t * (7024.72 - t * 2710.57))))),
    c(32.49 + t * (170.73 + t * (52.82 - t * (131.46 - t * (176.58 - t * 67.37))))),
    c(81.24 + t * (442.36 - t * (2482.43 - t * (6167.24 - t * (6614.94 - t * 2475.67))))),
  ];
}

function table(at: (t: number) => [number, number, number]): Float32Array {
  const lut = new Float32Array(LUT_SIZE * 3);
  for (let k = 0; k < LUT_SIZE; k++) lut.set(at(k / (LUT_SIZE - 1)), k * 3);
  return lut;
}

const LUTS: Record<ContinuousMap, Float32Array> = {
  viridis: table((t) => fromStops([...VIRIDIS, VIRIDIS_END], t)),
  cividis: table(cividisAt),
  coolwarm: table((t) => fromStops(COOLWARM, t)),
};

/** Writes map(t) for t in [0, 1] (clamped; NaN as 0) into out at offset o as RGB times `scale`. */
export function mapColour(map: ContinuousMap, t: number, out: Float32Array | Uint8ClampedArray, o: number, scale: number): void {
  const u = t > 0 ? (t < 1 ? t : 1) : 0;
  const k = Math.round(u * (LUT_SIZE - 1)) * 3;
  const lut = LUTS[map];
  out[o] = lut[k] * scale;
  out[o + 1] = lut[k + 1] * scale;
  out[o + 2] = lut[k + 2] * scale;
}

/** Writes viridis(t) for t in [0, 1] (clamped) into out at offset o as RGB. */
export function viridis(t: number, out: Float32Array | Uint8ClampedArray, o: number, scale: number): void {
  mapColour('viridis', t, out, o, scale);
}

/** Writes the colour of category k (0, 1, 2, ...) as RGB. */
export function categorical(k: number, out: Float32Array | Uint8ClampedArray, o: number, scale: number): void {
  const c = CATEGORICAL[((k % CATEGORICAL.length) + CATEGORICAL.length) % CATEGORICAL.length];
  out[o] = c[0] * scale;
  out[o + 1] = c[1] * scale;
  out[o + 2] = c[2] * scale;
}

/**
 * Writes a colour for an id that differs from its neighbours' (golden-ratio hue steps, so ids
 * 0, 1, 2 ... are far apart on the hue circle), as RGB. Used to tell touching particles apart.
 */
export function idColour(id: number, out: Float32Array | Uint8ClampedArray, o: number, scale: number): void {
  const h = (id * 0.618033988749895) % 1;
  const s = 0.55 + 0.25 * ((id * 0.754877666) % 1);
  const v = 0.75 + 0.2 * ((id * 0.569840291) % 1);
  // HSV to RGB
  const k = h * 6;
  const i = Math.floor(k);
  const f = k - i;
  const p = v * (1 - s);
  const q = v * (1 - s * f);
  const t = v * (1 - s * (1 - f));
  let r: number, g: number, b: number;
  switch (i % 6) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
  }
  out[o] = r * scale;
  out[o + 1] = g * scale;
  out[o + 2] = b * scale;
}

/** `n` evenly spaced CSS colours of a map, from t = 0 to 1 (legend bars, exported figures). */
export function mapStopsCss(map: ContinuousMap, n = 16): string[] {
  const c = new Uint8ClampedArray(3);
  return Array.from({ length: n }, (_, i) => {
    mapColour(map, i / (n - 1), c, 0, 255);
    return `rgb(${c[0]} ${c[1]} ${c[2]})`;
  });
}

/** CSS gradient of a map for a legend bar (left = low). */
export function mapCss(map: ContinuousMap = 'viridis'): string {
  const stops = mapStopsCss(map);
  return `linear-gradient(to right, ${stops.map((c, i) => `${c} ${((i / (stops.length - 1)) * 100).toFixed(1)}%`).join(', ')})`;
}

/** CSS colour of category k, for legends. */
export function categoricalCss(k: number): string {
  const c = new Uint8ClampedArray(3);
  categorical(k, c, 0, 255);
  return `rgb(${c[0]} ${c[1]} ${c[2]})`;
}
