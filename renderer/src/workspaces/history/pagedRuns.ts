/**
 * Rows of runs.list fetched page by page as the virtual table scrolls, so that 100,000 runs cost a few
 * pages of memory and a few small queries. A reset (new filter or sort) starts a new generation: answers
 * of older generations are dropped. Far pages are evicted so the cache stays bounded.
 */
import type { RunSummary } from '../../api';

export type FetchPage = (offset: number, limit: number) => Promise<{ total: number; rows: RunSummary[] }>;

export class PagedRuns {
  total = 0;
  loaded = false;
  error: string | null = null;
  private pages = new Map<number, RunSummary[]>();
  private pending = new Set<number>();
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
    const gen = this.generation;
    const jobs: Promise<void>[] = [];
    for (let p = p0; p <= p1; p++) {
      if (this.pages.has(p) || this.pending.has(p)) continue;
      if (this.loaded && p * this.pageSize >= this.total) break;
      this.pending.add(p);
      jobs.push(
        this.fetchPage(p * this.pageSize, this.pageSize).then(
          (res) => {
            if (gen !== this.generation) return;
            this.pending.delete(p);
            this.pages.set(p, res.rows);
            this.total = res.total;
            this.loaded = true;
            this.error = null;
            this.evict(p0, p1);
            this.onChange();
          },
          (e: unknown) => {
            if (gen !== this.generation) return;
            this.pending.delete(p);
            this.error = e instanceof Error ? e.message : String(e);
            this.loaded = true;
            this.onChange();
          },
        ),
      );
    }
    await Promise.all(jobs);
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
    for (const k of far.slice(0, this.pages.size - this.maxPages)) this.pages.delete(k);
  }
}
