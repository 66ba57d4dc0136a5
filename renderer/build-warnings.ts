// Rollup's warning handler for the renderer's two builds (vite.web.config.ts, and electron.vite.config.ts's
// renderer). It drops one warning, printed on every build: zod's own comments explain its `@__PURE__`
// annotations in prose, and rollup reads them as annotations it cannot place and removes them
// (INVALID_ANNOTATION). Only comments go, the code is the same. Every other warning is printed.
import type { Rollup } from 'vite';

const ZOD_MODULE = /[\\/]node_modules[\\/]zod[\\/]/;

export const onwarn: Rollup.WarningHandlerWithDefault = (warning, warn) => {
  if (warning.code === 'INVALID_ANNOTATION' && ZOD_MODULE.test(warning.id ?? '')) return;
  warn(warning);
};
