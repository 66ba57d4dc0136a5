/**
 * Rows of runs.list fetched page by page as the virtual table scrolls, so that 100,000 runs cost a few
 * pages of memory and a few small queries. A reset (new filter or sort) starts a new generation: answers
 * of older generations are dropped. Far pages are evicted so the cache stays bounded.
 *
 * A page that follows one in the cache is asked for as the rows after that one's last (runs.list's
 * after, its next): by offset, a run deleted since the page before (or one added before it) shifted
 * the rows, and a run was skipped (or shown twice) where the pages meet. Only a page with none
 * before it (the first, or a jump down the table) goes by offset.
 */
import type { RunSummary } from '../../api';

/** The page of `limit` rows at `offset`, or after `after` (an earlier answer's next) when given. */
export type FetchPage = (offset: number, limit: number, after: string | undefined) => Promise<{ total: number; rows: RunSummary[]; next: string | null }>;

export class PagedRuns {
  total = 0;
  loaded = false;
  error: string | null = null;
  private pages = new Map<number, RunSummary[]>();
  /** Each cached page's next (where it ends). */
  private nexts = new Map<number, string | null>();
  /** Pages asked for and not in yet; each settles (never rejects) once its answer is in. */
  private pending = new Map<number, Promise<void>>();
  private generation = 0;

  constructor(
    private readonly fetchPage: FetchPage,
    private readonly onChange: () => void,
    readonly pageSize = 200,
    readonly maxPages = 30,
  ) {}

  reset(): void {
    this.generation++;
    this.pages.clear();
    this.nexts.clear();
    this.pending.clear();
    this.loaded = false;
    this.error = null;
  }

  row(i: number): RunSummary | undefined {
    return this.pages.get(Math.floor(i / this.pageSize))?.[i % this.pageSize];
  }

  /** Loaded rows, in index order (for selection ranges and metric names). */
  loadedRows(): RunSummary[] {
    return [...this.pages.keys()].sort((a, b) => a - b).flatMap((k) => this.pages.get(k)!);
  }

  /** Loads the pages that rows first..last fall on; resolves when they are in. */
  async ensure(first: number, last: number): Promise<void> {
    const p0 = Math.max(0, Math.floor(first / this.pageSize));
    const p1 = Math.max(p0, Math.floor(Math.max(first, last) / this.pageSize));
    const jobs: Promise<void>[] = [];
    for (let p = p0; p <= p1; p++) {
      if (this.pages.has(p) || this.pending.has(p)) continue;
      if (this.loaded && p * this.pageSize >= this.total) break;
      const job = this.load(p, p0, p1);
      this.pending.set(p, job);
      jobs.push(job);
    }
    await Promise.all(jobs);
  }

  private async load(p: number, p0: number, p1: number): Promise<void> {
    const gen = this.generation;
    // After the page before when it is cached or on its way (then once it is in).
    const before = this.pending.get(p - 1);
    if (before) {
      await before;
      if (gen !== this.generation) return;
    }
    const after = this.pages.has(p - 1) ? (this.nexts.get(p - 1) ?? undefined) : undefined;
    try {
      const res = await this.fetchPage(p * this.pageSize, this.pageSize, after);
      if (gen !== this.generation) return;
      this.pending.delete(p);
      this.pages.set(p, res.rows);
      this.nexts.set(p, res.next);
      this.total = res.total;
      this.loaded = true;
      this.error = null;
      this.evict(p0, p1);
    } catch (e) {
      if (gen !== this.generation) return;
      this.pending.delete(p);
      this.error = e instanceof Error ? e.message : String(e);
      this.loaded = true;
    }
    this.onChange();
  }

  /** Replaces a run's row where it is cached (live updates); true if it was. */
  update(run: RunSummary): boolean {
    for (const rows of this.pages.values()) {
      const i = rows.findIndex((r) => r.id === run.id);
      if (i >= 0) {
        rows[i] = run;
        this.onChange();
        return true;
      }
    }
    return false;
  }

  cachedPages(): number {
    return this.pages.size;
  }

  private evict(p0: number, p1: number): void {
    if (this.pages.size <= this.maxPages) return;
    const far = [...this.pages.keys()].sort((a, b) => Math.max(p0 - b, b - p1) - Math.max(p0 - a, a - p1));
    for (const k of far.slice(0, this.pages.size - this.maxPages)) {
      this.pages.delete(k);
      this.nexts.delete(k);
    }
  }
}
