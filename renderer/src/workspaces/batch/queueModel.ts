/** Pure rules of the queue table: order, reordering by priority (its times: workingSeconds and remainingSeconds in main/api.ts). */
import type { RunSummary } from '../../api';

export const ACTIVE = ['running', 'paused', 'queued'] as const;

export function isActive(r: Pick<RunSummary, 'status'>): boolean {
  return (ACTIVE as readonly string[]).includes(r.status);
}

/**
 * Running and paused runs first, then queued ones in the order the queue will start them: by priority,
 * then oldest first. Runs created in the same millisecond (a sweep's) compare equal: a stable sort
 * keeps them in the service's order, which is the queue's (runs.list by priority).
 */
export function queueOrder(a: RunSummary, b: RunSummary): number {
  const rank = (r: RunSummary) => (r.status === 'queued' ? 1 : 0);
  return rank(a) - rank(b) || b.priority - a.priority || a.createdAt.localeCompare(b.createdAt);
}

export function fraction(r: RunSummary): number {
  if (r.status === 'done') return 1;
  const { done, total } = r.progress;
  return total > 0 ? Math.min(1, Math.max(0, done / total)) : 0;
}

export const PRIORITY_MIN = -1000;
export const PRIORITY_MAX = 1000;

function before(a: RunSummary, b: RunSummary): boolean {
  return queueOrder(a, b) < 0;
}

/**
 * Priority changes that move queued run `from` to place `to` (indices in queue order). Only the moved
 * run changes when some priority puts it between its new neighbours (ties go by creation time); when
 * none does, the whole queued list is renumbered in the new order.
 */
export function reorder(queued: RunSummary[], from: number, to: number): { id: string; priority: number }[] {
  if (from === to || from < 0 || to < 0 || from >= queued.length || to >= queued.length) return [];
  const order = queued.slice();
  const [moved] = order.splice(from, 1);
  order.splice(to, 0, moved);
  const above = order[to - 1];
  const below = order[to + 1];
  const lo = Math.max(PRIORITY_MIN, (below?.priority ?? PRIORITY_MIN) - 1);
  const hi = Math.min(PRIORITY_MAX, (above?.priority ?? PRIORITY_MAX) + 1);
  // Candidates nearest the run's own priority first, so that moves change as little as possible.
  const candidates: number[] = [];
  for (let p = lo; p <= hi && candidates.length < 2100; p++) candidates.push(p);
  candidates.sort((a, b) => Math.abs(a - moved.priority) - Math.abs(b - moved.priority));
  for (const p of candidates) {
    const x = { ...moved, priority: p };
    if ((!above || before(above, x)) && (!below || before(x, below))) return [{ id: moved.id, priority: p }];
  }
  const top = Math.min(PRIORITY_MAX, Math.max(...queued.map((r) => r.priority)) + order.length);
  return order
    .map((r, k) => ({ id: r.id, priority: Math.max(PRIORITY_MIN, top - k) }))
    .filter((c, k) => c.priority !== order[k].priority);
}
