/**
 * The unit names the engines declare (params' .meta({ unit }), metrics, particle-table columns), as the
 * batch form, History and the inspector print them: one name for one quantity across engines. Lengths
 * with no physical scale (the voxel, stacking and surface engines: a size of 1 is whatever the user
 * means by it) are length units; the ball mill's are millimetres ('mm'), written as such.
 */
export const UNITS = {
  length: 'length units',
  area: 'length units²',
  volume: 'length units³',
  /** Voxels along one length unit. */
  resolution: 'voxels/length unit',
  /** The surface engine's simulated time, without a physical scale either. */
  time: 'time units',
  rate: '1/time unit',
  angle: '°',
} as const;
