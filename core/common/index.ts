export * from './random';
export * from './engine';
export * from './units';
