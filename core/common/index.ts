export * from './random';
export * from './engine';
