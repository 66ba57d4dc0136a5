/** The SIMD kernels' module bytes, compiled from core/voxel/kernels.wat (see build-wasm.mjs). */
export function compileKernels(): Promise<Buffer>;
