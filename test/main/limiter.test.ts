import { describe, expect, it } from 'vitest';
import { Limiter } from '../../main/services/limiter';

describe('Limiter', () => {
  it('runs at most `slots` jobs at a time, in call order, and frees a slot when a job throws', async () => {
    const limiter = new Limiter(2);
    let running = 0, peak = 0;
    const order: number[] = [];
    const job = (i: number) => limiter.run(async () => {
      peak = Math.max(peak, ++running);
      order.push(i);
      await new Promise((r) => setTimeout(r, 5));
      running--;
      if (i === 1) throw new Error('job 1 fails');
      return i;
    });
    const results = await Promise.allSettled([0, 1, 2, 3, 4, 5].map(job));
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    expect(await limiter.run(async () => 'free again')).toBe('free again');
    expect(() => new Limiter(0)).toThrow(/slots must be an integer >= 1/);
  });
});
