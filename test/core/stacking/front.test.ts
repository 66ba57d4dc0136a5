import { describe, expect, it } from 'vitest';
import { Random } from '../../../core/common/random';
import { OpenFront } from '../../../core/stacking/front';

/** The open balls as brute force keeps them: a list sorted by key, then slot. */
interface Entry { slot: number; ball: number; key: number; fail: number }

describe("the front order's open balls (OpenFront) against brute force", () => {
  it('first(from, r) finds the slot and rank brute force finds, through inserts, closes, fails and a renumbering', () => {
    const capacity = 3000, front = new OpenFront(capacity), rng = new Random(11);
    const list: Entry[] = [];
    let slots = 0, balls = 0;
    const bruteFirst = (from: number, r: number) => {
      for (let k = from; k < list.length; k++) if (list[k].fail > r) return { slot: list[k].slot, rank: k };
      return { slot: -1, rank: -1 };
    };
    for (let step = 0; step < 6000; step++) {
      const u = rng.next();
      if (u < 0.45 && slots < capacity) {
        // Keys from a coarse set as well, so that equal keys go by slot.
        const key = rng.next() < 0.2 ? rng.int(10) : rng.uniform(0, 10);
        front.insert(balls, key);
        list.push({ slot: slots++, ball: balls++, key, fail: Infinity });
        list.sort((a, b) => a.key - b.key || a.slot - b.slot);
      } else if (u < 0.6 && list.length > 0) {
        const k = rng.int(list.length);
        front.remove(list[k].slot);
        list.splice(k, 1);
      } else if (u < 0.75 && list.length > 0) {
        const k = rng.int(list.length), f = rng.uniform(0.02, 0.2);
        front.setFail(list[k].slot, f);
        list[k].fail = f;
      } else if (u < 0.76) {
        // Renumbering: ball b becomes inv[b].
        const inv = new Int32Array(balls);
        for (let b = 0; b < balls; b++) inv[b] = balls - 1 - b;
        front.remap(inv);
        for (const e of list) e.ball = inv[e.ball];
      } else {
        const from = rng.int(list.length + 1), r = rng.uniform(0.01, 0.25);
        const want = bruteFirst(from, r), got = front.first(from, r);
        expect(got).toBe(want.slot);
        if (got >= 0) {
          expect(front.rank).toBe(want.rank);
          expect(front.ball[got]).toBe(list[want.rank].ball);
          expect(front.key[got]).toBe(list[want.rank].key);
        }
      }
      expect(front.size).toBe(list.length);
    }
    front.clear();
    expect(front.size).toBe(0);
    expect(front.first(0, 0)).toBe(-1);
  });

  it('skips the balls that take only smaller radii without visiting each', () => {
    // 20,000 open balls, the 19,000 lowest known to take nothing of radius 0.03 or more: a search
    // for 0.05 visits a few tree paths (a heap by key popped all 19,000 first).
    const n = 20000, front = new OpenFront(n);
    for (let i = 0; i < n; i++) front.insert(i, i);
    for (let i = 0; i < 19000; i++) front.setFail(i, 0.03);
    const before = front.steps;
    expect(front.first(0, 0.05)).toBe(19000);
    expect(front.rank).toBe(19000);
    expect(front.steps - before).toBeLessThan(200);
    expect(front.first(0, 0.02)).toBe(0);
  });
});
