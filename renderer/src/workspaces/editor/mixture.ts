/**
 * A mixture of particle types and the size distribution it produces.
 *
 * Each type has a shape, a size law (the shape's characteristic size in length units, as the voxel
 * engine sizes shapes: see each shape's description) and a fraction. Fractions are by number or by
 * volume for the whole mixture. The distribution is tabulated on size bins, number-weighted
 * (how many particles) and volume-weighted (how much material), the two curves a powder
 * technologist compares with a laser-diffraction or sieve measurement.
 * Size laws, their ranges and bounds are the voxel engine's own (core/voxel/params.ts).
 */
import { z } from 'zod';
import { maxSize, minSize, particleTypeSchema, sizeLawSchema, type SizeLaw } from '../../../../core/voxel/params';
import { schemaMessages } from './shapeForm';
import { typedNumber } from '../../stores/keptDrafts';

export type { SizeLaw };
export type SizeLawKind = SizeLaw['law'];

/** The laws the voxel engine knows, in its schema's order. */
export const SIZE_LAW_KINDS = sizeLawSchema.options.map((o) => o.shape.law.value) as SizeLawKind[];

export const SIZE_LAW_LABELS: Record<SizeLawKind, string> = {
  fixed: 'Fixed',
  uniform: 'Uniform',
  normal: 'Normal',
  lognormal: 'Log-normal',
  table: 'Table',
};

export interface MixtureType {
  shapeId: string;
  size: SizeLaw;
  /** Share of the mixture (any positive scale; normalised over the types). */
  fraction: number;
}

export interface Mixture {
  basis: 'number' | 'volume';
  types: MixtureType[];
}

/**
 * A size law as a draft holds it (stores/keptDrafts.ts): the law's own fields (defaultLaw's), each a
 * number or a list as typed, NaN included; the values are checked at their fields (validateMixture).
 */
const sizeLawDraftSchema = z
  .object({ law: z.enum(SIZE_LAW_KINDS) })
  .catchall(z.union([typedNumber, z.array(typedNumber)]))
  .superRefine((l, ctx) => {
    const shape = defaultLaw(l.law) as unknown as Record<string, unknown>;
    const keys = Object.keys(l);
    const expected = Object.keys(shape);
    const wrong = keys.find((k) => !expected.includes(k) || Array.isArray(l[k]) !== Array.isArray(shape[k])) ?? expected.find((k) => !keys.includes(k));
    if (wrong) ctx.addIssue({ code: 'custom', path: [wrong], message: `a ${l.law} size law holds ${expected.join(', ')}` });
  }) as unknown as z.ZodType<SizeLaw>;

/** A mixture as the particle editor keeps it as a draft across a reload or a restart. */
export const mixtureDraftSchema: z.ZodType<Mixture> = z
  .object({
    basis: z.enum(['number', 'volume']),
    types: z.array(z.object({ shapeId: z.string(), size: sizeLawDraftSchema, fraction: typedNumber }).strict()),
  })
  .strict();

/** A typical size of a law, used to keep the size when the user switches law. */
export function typicalSize(law: SizeLaw): number {
  switch (law.law) {
    case 'fixed': return law.value;
    case 'uniform': return (law.min + law.max) / 2;
    case 'normal': return law.mean;
    case 'lognormal': return law.median;
    case 'table': return law.sizes.length ? law.sizes[Math.floor(law.sizes.length / 2)] : 1;
  }
}

/** A length the app makes up, to 4 significant digits: 2/3 shows as 0.6667, whole in its box, not 0.66666666… cut. */
const madeUp = (v: number): number => Number(v.toPrecision(4));

/**
 * A law of `kind` around a typical size: the engine's defaults for the law (its schema's), lengths
 * scaled so that the typical size is `around`. The table law has no defaults: three sizes around it.
 * The typical size itself is kept as it is; the other lengths are rounded (madeUp).
 */
export function defaultLaw(kind: SizeLawKind, around = 1): SizeLaw {
  if (kind === 'table') return { law: kind, sizes: [madeUp(around * 0.5), around, madeUp(around * 2)], weights: [0.25, 0.5, 0.25] };
  const law = sizeLawSchema.parse({ law: kind });
  const k = around / typicalSize(law);
  switch (law.law) {
    case 'fixed': return { ...law, value: law.value * k };
    case 'uniform': return { ...law, min: madeUp(law.min * k), max: madeUp(law.max * k) };
    case 'normal': return { ...law, mean: law.mean * k, sd: madeUp(law.sd * k) };
    case 'lognormal': return { ...law, median: law.median * k };
    case 'table': return law;
  }
}

/** One validation message, with the path of the field it belongs to (e.g. 'types.0.size.sd'). */
export interface MixtureIssue {
  path: string;
  message: string;
}


/**
 * Checks a mixture by the voxel engine's own schemas (core/voxel/params.ts: size laws, fractions);
 * an empty list means it can be plotted and sent to the batch manager.
 */
export function validateMixture(m: Mixture): MixtureIssue[] {
  const issues: MixtureIssue[] = [];
  let fractionRefused = false;
  if (m.types.length === 0) issues.push({ path: 'types', message: 'add at least one particle type' });
  m.types.forEach((t, i) => {
    const p = `types.${i}`;
    if (!t.shapeId) issues.push({ path: `${p}.shapeId`, message: 'choose a shape' });
    for (const [path, message] of Object.entries(schemaMessages(sizeLawSchema, t.size))) issues.push({ path: [p, 'size', path].filter(Boolean).join('.'), message });
    const fraction = Object.values(schemaMessages(particleTypeSchema.shape.fraction, t.fraction))[0];
    if (fraction) {
      issues.push({ path: `${p}.fraction`, message: fraction });
      fractionRefused = true;
    }
  });
  // The engine's cross-field rule (core/voxel/params.ts checkParams): some type must be drawn. Not
  // while a fraction is refused at its field: '1e' on the way to '1e-3' is no number yet, not a 0,
  // and the table said 'at least one fraction must be > 0' under the row that said 'enter a number'.
  if (m.types.length && !fractionRefused && !m.types.some((t) => t.fraction > 0)) issues.push({ path: 'types', message: 'at least one fraction must be > 0' });
  return issues;
}

/** Smallest and largest size a law produces: the engine's own bounds (normal and log-normal cut at 4 sd). */
export function lawRange(l: SizeLaw): [number, number] {
  return [minSize(l), maxSize(l)];
}

function erf(x: number): number {
  // Abramowitz & Stegun 7.1.26, |error| < 1.5e-7: plenty for a plot.
  const s = x < 0 ? -1 : 1;
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  const y = 1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496735) * t + 0.254829592) * t * Math.exp(-a * a);
  return s * y;
}

/** Cumulative number fraction of a law below size d (continuous laws; fixed and table are steps). */
function cdf(l: SizeLaw, d: number): number {
  switch (l.law) {
    case 'fixed': return d >= l.value ? 1 : 0;
    case 'uniform': return l.max > l.min ? Math.min(1, Math.max(0, (d - l.min) / (l.max - l.min))) : d >= l.min ? 1 : 0;
    case 'normal': {
      if (l.sd === 0) return d >= l.mean ? 1 : 0;
      // truncated at 0: sizes are positive
      const f0 = 0.5 * (1 + erf((0 - l.mean) / (l.sd * Math.SQRT2)));
      const f = 0.5 * (1 + erf((d - l.mean) / (l.sd * Math.SQRT2)));
      return d <= 0 ? 0 : (f - f0) / (1 - f0);
    }
    case 'lognormal':
      if (d <= 0) return 0;
      if (l.sigma === 0) return d >= l.median ? 1 : 0;
      return 0.5 * (1 + erf(Math.log(d / l.median) / (l.sigma * Math.SQRT2)));
    case 'table': {
      let total = 0;
      let below = 0;
      for (let k = 0; k < l.sizes.length; k++) {
        total += l.weights[k];
        if (l.sizes[k] <= d) below += l.weights[k];
      }
      return total > 0 ? below / total : 0;
    }
  }
}

export interface SizeDistribution {
  /** Bin centres (length units). */
  centres: Float64Array;
  edges: Float64Array;
  /** Number fraction per bin, in % (sums to 100). */
  number: Float64Array;
  /** Volume fraction per bin, in % (sums to 100). */
  volume: Float64Array;
  /** Number fraction of each type, in % (what a volume-based mixture means in particles). */
  typeNumberPercent: number[];
  /** Volume fraction of each type, in %. */
  typeVolumePercent: number[];
}

/**
 * Tabulates the mixture on `bins` size bins spanning every law. `volumeFactor[i]` is the volume of
 * type i's shape at size 1 (pi/6 for a sphere of diameter 1); particle volume scales with size^3.
 * Within a bin the size is taken at the bin centre, except for fixed and table sizes, which fall
 * on their own bin at their own size.
 */
export function sizeDistribution(m: Mixture, volumeFactor: number[], bins = 40): SizeDistribution {
  if (validateMixture(m).length) throw new Error('sizeDistribution: the mixture is not valid');
  let lo = Infinity;
  let hi = -Infinity;
  for (const t of m.types) {
    const [a, b] = lawRange(t.size);
    lo = Math.min(lo, a);
    hi = Math.max(hi, b);
  }
  if (hi <= lo) {
    lo *= 0.9;
    hi *= 1.1;
  }
  const edges = new Float64Array(bins + 1);
  for (let k = 0; k <= bins; k++) edges[k] = lo + ((hi - lo) * k) / bins;
  edges[bins] = hi * (1 + 1e-12); // the largest size falls inside the last bin
  const centres = new Float64Array(bins);
  for (let k = 0; k < bins; k++) centres[k] = (edges[k] + edges[k + 1]) / 2;

  // Per type: number pdf over bins and the mean volume of one particle.
  const pdfs: Float64Array[] = [];
  const meanVolume: number[] = [];
  const binVolume: Float64Array[] = [];
  m.types.forEach((t, i) => {
    const p = new Float64Array(bins);
    const v = new Float64Array(bins); // volume of one particle of the bin
    const k3 = volumeFactor[i] ?? Math.PI / 6;
    const l = t.size;
    const discrete = l.law === 'fixed' ? [[l.value, 1]] : l.law === 'table' ? l.sizes.map((s, j) => [s, l.weights[j]]) : null;
    if (discrete) {
      let total = 0;
      const vsum = new Float64Array(bins);
      for (const [s, f] of discrete) {
        const b = Math.min(bins - 1, Math.max(0, Math.floor(((s - lo) / (edges[bins] - lo)) * bins)));
        p[b] += f;
        vsum[b] += f * k3 * s * s * s;
        total += f;
      }
      for (let b = 0; b < bins; b++) {
        v[b] = p[b] > 0 ? vsum[b] / p[b] : 0;
        p[b] /= total;
      }
    } else {
      for (let b = 0; b < bins; b++) {
        p[b] = cdf(l, edges[b + 1]) - cdf(l, edges[b]);
        v[b] = k3 * centres[b] ** 3;
      }
      const total = p.reduce((a, x) => a + x, 0);
      for (let b = 0; b < bins; b++) p[b] = total > 0 ? p[b] / total : 0;
    }
    let mv = 0;
    for (let b = 0; b < bins; b++) mv += p[b] * v[b];
    pdfs.push(p);
    binVolume.push(v);
    meanVolume.push(mv);
  });

  // Number share of each type.
  const raw = m.types.map((t, i) => (m.basis === 'number' ? t.fraction : meanVolume[i] > 0 ? t.fraction / meanVolume[i] : 0));
  const rawSum = raw.reduce((a, x) => a + x, 0);
  const share = raw.map((x) => x / rawSum);

  const number = new Float64Array(bins);
  const volume = new Float64Array(bins);
  m.types.forEach((_, i) => {
    for (let b = 0; b < bins; b++) {
      number[b] += share[i] * pdfs[i][b];
      volume[b] += share[i] * pdfs[i][b] * binVolume[i][b];
    }
  });
  const vTotal = volume.reduce((a, x) => a + x, 0);
  for (let b = 0; b < bins; b++) {
    number[b] *= 100;
    volume[b] = vTotal > 0 ? (volume[b] / vTotal) * 100 : 0;
  }
  const typeVol = share.map((s, i) => s * meanVolume[i]);
  const typeVolSum = typeVol.reduce((a, x) => a + x, 0);
  return {
    centres,
    edges,
    number,
    volume,
    typeNumberPercent: share.map((s) => s * 100),
    typeVolumePercent: typeVol.map((x) => (typeVolSum > 0 ? (x / typeVolSum) * 100 : 0)),
  };
}
