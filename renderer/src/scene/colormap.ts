/**
 * Colour maps for particles and slices. Colours are written into Float32Arrays (RGBA, 0..1) for
 * Babylon's thin-instance colour buffer and into Uint8ClampedArrays for 2D slice images, so one
 * map serves both views and a particle has the same colour in the 3D view and in the slice.
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

/** Writes viridis(t) for t in [0, 1] (clamped) into out at offset o as RGB. */
export function viridis(t: number, out: Float32Array | Uint8ClampedArray, o: number, scale: number): void {
  const u = t > 0 ? (t < 1 ? t : 1) : 0; // also maps NaN to 0
  const stops = VIRIDIS.length; // the last segment runs to VIRIDIS_END
  const f = u * stops;
  const i = Math.min(stops - 1, Math.floor(f));
  const w = f - i;
  const a = VIRIDIS[i];
  const b = i + 1 < stops ? VIRIDIS[i + 1] : VIRIDIS_END;
  out[o] = (a[0] + (b[0] - a[0]) * w) * scale;
  out[o + 1] = (a[1] + (b[1] - a[1]) * w) * scale;
  out[o + 2] = (a[2] + (b[2] - a[2]) * w) * scale;
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

/** CSS gradient of viridis for a legend bar. */
export function viridisCss(): string {
  const stops = [...VIRIDIS, VIRIDIS_END].map(
    (c, i, all) => `rgb(${Math.round(c[0] * 255)} ${Math.round(c[1] * 255)} ${Math.round(c[2] * 255)}) ${((i / (all.length - 1)) * 100).toFixed(1)}%`,
  );
  return `linear-gradient(to right, ${stops.join(', ')})`;
}

/** CSS colour of category k, for legends. */
export function categoricalCss(k: number): string {
  const c = new Uint8ClampedArray(3);
  categorical(k, c, 0, 255);
  return `rgb(${c[0]} ${c[1]} ${c[2]})`;
}
