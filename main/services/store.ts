/**
 * RunStore: everything PackBench remembers, in one SQLite file (better-sqlite3, WAL, numbered
 * migrations). Shapes, presets, batches, runs, their series and their artifacts. Big arrays never
 * live here: artifacts are files under runs/<id>/ and the artifacts table records path, size and
 * checksum. Synchronous on purpose: every call is a prepared statement of well under a millisecond,
 * except listing, which is indexed for 100,000 runs (bench/store.ts).
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import type {
  MetricValue,
  Preset,
  RunArtifact,
  RunRecord,
  RunSeries,
  RunSpec,
  RunSpecInput,
  RunStatus,
  RunSummary,
  Shape,
  ShapeVoxelisation,
} from '../api';
import { ApiError, paramsSchemas, sweepValues, type BatchSummary, type Sweep } from '../api';
import { sweptPaths, valuesAt } from './sweep';
import type { z } from 'zod';

/**
 * SQL that renames metric `from` to `to` in the runs of `engines`: in the metrics JSON and in the
 * metric index (where a run already has `to`, e.g. an equal value under both names, `to` stays).
 */
function renameMetricSql(engines: string[], from: string, to: string): string {
  const runs = `SELECT seq FROM runs WHERE engine IN (${engines.map((e) => `'${e}'`).join(', ')})`;
  return `
  UPDATE runs SET metrics = json_remove(json_set(metrics, '$.${to}', json_extract(metrics, '$.${from}')), '$.${from}')
    WHERE seq IN (${runs}) AND json_type(metrics, '$.${from}') IS NOT NULL;
  DELETE FROM run_metrics WHERE name = '${from}' AND run_seq IN (${runs}) AND run_seq IN (SELECT run_seq FROM run_metrics WHERE name = '${to}');
  UPDATE run_metrics SET name = '${to}' WHERE name = '${from}' AND run_seq IN (${runs});`;
}

/**
 * SQL that retires metric `from`, a second name the runs of `engines` gave quantity `to`: a run with
 * both keeps `to` (its value and its index row), a run with only `from` gets it under `to`.
 */
function retireMetricSql(engines: string[], from: string, to: string): string {
  const runs = `SELECT seq FROM runs WHERE engine IN (${engines.map((e) => `'${e}'`).join(', ')})`;
  return `
  UPDATE runs SET metrics = json_remove(
      CASE WHEN json_type(metrics, '$.${to}') IS NULL THEN json_set(metrics, '$.${to}', json_extract(metrics, '$.${from}')) ELSE metrics END,
      '$.${from}')
    WHERE seq IN (${runs}) AND json_type(metrics, '$.${from}') IS NOT NULL;
  DELETE FROM run_metrics WHERE name = '${from}' AND run_seq IN (${runs}) AND run_seq IN (SELECT run_seq FROM run_metrics WHERE name = '${to}');
  UPDATE run_metrics SET name = '${to}' WHERE name = '${from}' AND run_seq IN (${runs});`;
}

/**
 * Numbered migrations: index i brings the schema from version i to i + 1 (SQL, or a function for what
 * SQL cannot compute). Never edit a shipped one.
 */
const MIGRATIONS: (string | ((db: Database.Database) => void))[] = [
  `
  CREATE TABLE shapes (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    kind TEXT NOT NULL,
    params TEXT NOT NULL,
    builtin INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE presets (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    engine TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE batches (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    spec TEXT NOT NULL,
    created_at TEXT NOT NULL,
    finished_at TEXT
  );
  CREATE TABLE runs (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    batch_id TEXT REFERENCES batches(id) ON DELETE SET NULL,
    name TEXT NOT NULL,
    engine TEXT NOT NULL,
    spec TEXT NOT NULL,
    params TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('queued','running','paused','done','failed','cancelled')),
    priority INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT,
    wall_seconds REAL,
    progress_done REAL NOT NULL DEFAULT 0,
    progress_total REAL NOT NULL DEFAULT 0,
    phase TEXT NOT NULL DEFAULT '',
    counters TEXT NOT NULL DEFAULT '{}',
    metrics TEXT NOT NULL DEFAULT '{}',
    error TEXT,
    log TEXT NOT NULL DEFAULT '[]',
    app_version TEXT NOT NULL DEFAULT '',
    host TEXT,
    threads INTEGER NOT NULL DEFAULT 1,
    attempts INTEGER NOT NULL DEFAULT 0,
    -- 'hostname:pid' of the process running it, so that crash recovery leaves live processes' runs alone.
    owner TEXT
  );
  -- The queue's pick; History's filters (newest first within a status and/or engine); its sorts.
  CREATE INDEX runs_queue ON runs (status, priority DESC, seq);
  CREATE INDEX runs_status ON runs (status, seq);
  CREATE INDEX runs_engine ON runs (engine, status, seq);
  CREATE INDEX runs_created ON runs (created_at);
  CREATE INDEX runs_batch ON runs (batch_id);
  CREATE INDEX runs_wall ON runs (wall_seconds);
  CREATE INDEX runs_name ON runs (name);
  -- Numeric metrics, one row each, so that History can filter by a metric range through an index.
  CREATE TABLE run_metrics (
    run_seq INTEGER NOT NULL REFERENCES runs(seq) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL NOT NULL,
    PRIMARY KEY (run_seq, name)
  ) WITHOUT ROWID;
  CREATE INDEX run_metrics_value ON run_metrics (name, value);
  CREATE TABLE series (
    id INTEGER PRIMARY KEY,
    run_seq INTEGER NOT NULL REFERENCES runs(seq) ON DELETE CASCADE,
    name TEXT NOT NULL,
    x_label TEXT NOT NULL,
    y_label TEXT NOT NULL,
    kind TEXT NOT NULL,
    x BLOB NOT NULL,
    y BLOB NOT NULL
  );
  CREATE INDEX series_run ON series (run_seq);
  CREATE TABLE artifacts (
    id INTEGER PRIMARY KEY,
    run_seq INTEGER NOT NULL REFERENCES runs(seq) ON DELETE CASCADE,
    kind TEXT NOT NULL CHECK (kind IN ('table','volume')),
    name TEXT NOT NULL,
    path TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    checksum TEXT NOT NULL,
    meta TEXT NOT NULL DEFAULT '{}'
  );
  CREATE INDEX artifacts_run ON artifacts (run_seq);
  `,
  // The particle editor's size, resolution and reduction threshold of a shape (JSON; NULL: never saved).
  `ALTER TABLE shapes ADD COLUMN voxelisation TEXT;`,
  // 3: engines declare their particle tables (core/common/engine.ts ParticleTableSpec); tables
  // written before that get the declaration of their engine as it was then.
  `
  UPDATE artifacts SET meta = json_set(meta, '$.particleTable', json('{"name":"particles","centre":["x","y","z"],"size":[{"column":"equivalentDiameter","is":"diameter"},{"column":"size","is":"diameter"}],"glyph":{"kind":"sphere"},"id":"id","category":{"column":"type","label":"Particle type","namesFrom":"types"},"quantities":[{"column":"bodyTilt","label":"Tilt of the body axis","unit":"° from z"},{"column":"principalTilt","label":"Tilt of the longest principal axis","unit":"° from z"},{"column":"coordination","label":"Coordination number"},{"column":"equivalentDiameter","label":"Volume-equivalent diameter","unit":"length units"},{"column":"voxels","label":"Solid voxels"}]}'))
    WHERE kind = 'table' AND name = 'particles' AND json_extract(meta, '$.particleTable') IS NULL
      AND run_seq IN (SELECT seq FROM runs WHERE engine = 'voxel');
  UPDATE artifacts SET meta = json_set(meta, '$.particleTable', json('{"name":"spheres","centre":["x","y","z"],"size":[{"column":"r","is":"radius"}],"glyph":{"kind":"sphere"},"id":"id","category":{"column":"type","label":"Sphere type"},"quantities":[{"column":"coordination","label":"Coordination number"}]}'))
    WHERE kind = 'table' AND name = 'spheres' AND json_extract(meta, '$.particleTable') IS NULL
      AND run_seq IN (SELECT seq FROM runs WHERE engine = 'spheres');
  `,
  // A run's values of its batch's swept params (JSON { path: value }; NULL outside a sweep), so that
  // History and the queue show them as columns; runs of earlier sweeps get them from their batch's spec.
  (db) => {
    // Tolerates a file that already has the column (a test or a downgrade that rewound user_version).
    const has = (db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).some((c) => c.name === 'sweep');
    if (!has) db.exec('ALTER TABLE runs ADD COLUMN sweep TEXT');
    const runsOf = db.prepare('SELECT seq, spec FROM runs WHERE batch_id = ?');
    const set = db.prepare('UPDATE runs SET sweep = ? WHERE seq = ?');
    for (const b of db.prepare('SELECT id, spec FROM batches').all() as { id: string; spec: string }[]) {
      const paths = sweptPaths((JSON.parse(b.spec) as RunSpec).params ?? {});
      if (!paths.length) continue;
      for (const r of runsOf.all(b.id) as { seq: number; spec: string }[]) set.run(JSON.stringify(valuesAt((JSON.parse(r.spec) as RunSpec).params, paths)), r.seq);
    }
  },
  // Metrics name their reference volume (bed, bulk, box). A stored metric takes its new name only
  // where its definition is the new name's (porosity below the top surface is bedPorosity, the
  // engine's bedHeight is meanHeight); the voxel engine's solidFraction (below the mean height) and
  // bulkSolidFraction (its own fixed slab) were other volumes and become legacy*, so that no name
  // means two things across old and new runs.
  [
    renameMetricSql(['voxel', 'spheres'], 'porosity', 'bedPorosity'),
    renameMetricSql(['voxel'], 'bedHeight', 'meanHeight'),
    renameMetricSql(['voxel'], 'solidFraction', 'legacySolidFraction'),
    renameMetricSql(['voxel'], 'bulkSolidFraction', 'legacyBulkSolidFraction'),
  ].join('\n'),
  // One name for one quantity: core/analysis counted the particles as particleCount beside the
  // engine's particles (voxel runs carried both, equal); sphere imports too.
  retireMetricSql(['voxel', 'spheres'], 'particleCount', 'particles'),
  // The voxel engine's final settling pass (finalSettling, on by default) came after these runs:
  // finished voxel runs whose params lack it ran without it, and say so, so that their params are not
  // read with the new default. Runs still to run (or to resume) get the pass, as new runs do.
  `UPDATE runs SET params = json_set(params, '$.finalSettling', json('false'))
    WHERE engine = 'voxel' AND status IN ('done', 'failed', 'cancelled') AND json_type(params, '$.finalSettling') IS NULL;`,
  // One name for one quantity across engines: the ball mill counted its balls as balls, every other
  // engine as particles (History's particles column was empty for ball-mill runs).
  retireMetricSql(['ballmill'], 'balls', 'particles'),
  // Settings of the data folder that outlive a process (the queue's pause).
  `CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);`,
  // The runs deleted, newest last, so that the processes following the folder (JobQueue.followOthers)
  // learn of a finished run deleted by another one without listing every run. The last 10,000 are
  // kept (they look every 2 s); each deletion trims by the key, in constant time (the newest entry
  // stays, so seq keeps growing without AUTOINCREMENT).
  `
  CREATE TABLE IF NOT EXISTS deleted_runs (seq INTEGER PRIMARY KEY, id TEXT NOT NULL);
  CREATE TRIGGER IF NOT EXISTS runs_deleted AFTER DELETE ON runs BEGIN
    INSERT INTO deleted_runs (id) VALUES (old.id);
    DELETE FROM deleted_runs WHERE seq <= (SELECT max(seq) FROM deleted_runs) - 10000;
  END;
  `,
  // A run's pauses, so that its working time stands still while it is paused (api.ts workingSeconds):
  // when its current pause began, and the seconds of its earlier pauses since it started.
  (db) => {
    // Tolerates a file that already has the columns (a test or a downgrade that rewound user_version).
    const has = new Set((db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name));
    if (!has.has('paused_at')) db.exec('ALTER TABLE runs ADD COLUMN paused_at TEXT');
    if (!has.has('paused_seconds')) db.exec('ALTER TABLE runs ADD COLUMN paused_seconds REAL NOT NULL DEFAULT 0');
  },
  // The voxel particle table's principalTilt is the tilt of the axis whose moment stands apart (a
  // rod's axis, a plate's normal), as it always was; its declaration called it the longest principal
  // axis until 432562c, and tables stored before (migration 3's copy too) kept that label, so the
  // inspector read flat-lying plates of an old run as plates standing on edge.
  (db) => {
    const rows = db.prepare("SELECT id, meta FROM artifacts WHERE kind = 'table' AND meta LIKE '%Tilt of the longest principal axis%'").all() as { id: number; meta: string }[];
    const set = db.prepare('UPDATE artifacts SET meta = ? WHERE id = ?');
    for (const row of rows) {
      const meta = JSON.parse(row.meta) as { particleTable?: { quantities?: { column: string; label: string }[] } };
      for (const q of meta.particleTable?.quantities ?? []) {
        if (q.column === 'principalTilt' && q.label === 'Tilt of the longest principal axis') q.label = "Tilt of the principal axis (a rod's axis, a plate's normal)";
      }
      set.run(JSON.stringify(meta), row.id);
    }
  },
  // Where a run's current progress scale began (api.ts RunProgress.fromSeconds): engines report
  // each phase from 0, so the time left is the pace since then, not since the run started.
  (db) => {
    // Tolerates a file that already has the columns (a test or a downgrade that rewound user_version).
    const has = new Set((db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name));
    if (!has.has('progress_from_seconds')) db.exec('ALTER TABLE runs ADD COLUMN progress_from_seconds REAL NOT NULL DEFAULT 0');
    if (!has.has('progress_from_done')) db.exec('ALTER TABLE runs ADD COLUMN progress_from_done REAL NOT NULL DEFAULT 0');
  },
  // The report the time left takes its pace from (api.ts RunProgress.paceSeconds), and the next one
  // it moves up to (RunStore.setProgress); a run under way goes on from its scale's beginning.
  (db) => {
    // Tolerates a file that already has the columns (a test or a downgrade that rewound user_version).
    const has = new Set((db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name));
    for (const c of ['progress_pace_seconds', 'progress_pace_done', 'progress_next_seconds', 'progress_next_done']) {
      if (!has.has(c)) db.exec(`ALTER TABLE runs ADD COLUMN ${c} REAL NOT NULL DEFAULT 0`);
    }
    db.exec(`UPDATE runs SET progress_pace_seconds = progress_from_seconds, progress_pace_done = progress_from_done,
      progress_next_seconds = progress_from_seconds, progress_next_done = progress_from_done`);
  },
  // A batch's runs by status, so that a run's end asks for the runs of its batch still to run
  // (batchUnfinished) without reading the others: each end of a 10,000-run sweep read all of them.
  `CREATE INDEX IF NOT EXISTS runs_batch_status ON runs (batch_id, status);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;

/** How a read-only view shows a run whose process ended (RunStore.showInterrupted): what the next writer will make of it, and a line of its log or its error saying why. */
export interface InterruptedView {
  status: 'queued' | 'paused' | 'cancelled' | 'failed';
  log?: string;
  error?: string;
}

/** A point of a batch: a run's seed and its values of the batch's swept params (RunSummary.sweep). */
export interface BatchPoint {
  batchId: string;
  seed: number;
  sweep: Record<string, unknown>;
}

/** A NewRun's row, as RunStore.encodeRun makes it. */
export interface EncodedRun {
  id: string;
  batchId: string | null;
  name: string;
  engine: string;
  spec: string;
  params: string;
  seed: number;
  status: 'queued' | 'paused';
  priority: number;
  createdAt: string;
  sweep: string | null;
}

export interface NewRun {
  name: string;
  engine: string;
  spec: RunSpec;
  params: Record<string, unknown>;
  seed: number;
  priority: number;
  batchId: string | null;
  /** The values of the batch's swept params in this run (SweepPoint.values); none outside a sweep. A re-run's: those its name's label says (JobQueue.rerun). */
  sweep?: Record<string, unknown>;
  /** 'paused' when queued on hold. */
  status?: 'queued' | 'paused';
}

export interface FinishedRun {
  status: 'done' | 'failed' | 'cancelled';
  metrics?: Record<string, MetricValue>;
  series?: RunSeries[];
  artifacts?: Omit<RunArtifact, 'id'>[];
  error?: string | null;
  wallSeconds?: number | null;
}

export type ListQuery = z.output<(typeof paramsSchemas)['runs.list']>;

export interface StoreOptions {
  /** Path of a better_sqlite3.node built for another ABI (Electron): see scripts/electron-native.mjs. */
  nativeBinding?: string;
  /**
   * Open for reading only, so that a read-only or full data folder can still be listed and shown
   * (see openForReading); every write then fails with SQLITE_READONLY.
   */
  readOnly?: boolean;
  /** How long opening waits for a lock another process holds (default BUSY_TIMEOUT_MS); the caller sets it back after. */
  busyTimeoutMs?: number;
}

export function newId(): string {
  return randomBytes(6).toString('hex');
}

const now = () => new Date().toISOString();

interface RunRow {
  seq: number;
  id: string;
  batch_id: string | null;
  name: string;
  engine: string;
  spec: string;
  params: string;
  seed: number;
  status: RunStatus;
  priority: number;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  paused_at: string | null;
  paused_seconds: number;
  wall_seconds: number | null;
  progress_done: number;
  progress_total: number;
  progress_from_seconds: number;
  progress_from_done: number;
  progress_pace_seconds: number;
  progress_pace_done: number;
  phase: string;
  counters: string;
  metrics: string;
  sweep: string | null;
  error: string | null;
  log: string;
  app_version: string;
  host: string | null;
  threads: number;
  attempts: number;
}

/** A run's progress as an attempt starts it (claim) or the queue takes it back (requeue): none, and no pace yet (setProgress). */
const PROGRESS_CLEARED = 'progress_done = 0, progress_total = 0, progress_from_seconds = 0, progress_from_done = 0, progress_pace_seconds = 0, progress_pace_done = 0, progress_next_seconds = 0, progress_next_done = 0';

const SUMMARY_COLUMNS =
  'seq, id, batch_id, name, engine, seed, status, priority, created_at, started_at, finished_at, paused_at, paused_seconds, wall_seconds, progress_done, progress_total, progress_from_seconds, progress_from_done, progress_pace_seconds, progress_pace_done, phase, metrics, sweep, error';

function toSummary(r: RunRow): RunSummary {
  return {
    id: r.id,
    name: r.name,
    engine: r.engine,
    status: r.status,
    priority: r.priority,
    seed: r.seed,
    progress: { done: r.progress_done, total: r.progress_total, phase: r.phase, fromSeconds: r.progress_from_seconds, fromDone: r.progress_from_done, paceSeconds: r.progress_pace_seconds, paceDone: r.progress_pace_done },
    createdAt: r.created_at,
    startedAt: r.started_at,
    finishedAt: r.finished_at,
    pausedAt: r.paused_at,
    pausedSeconds: r.paused_seconds,
    wallSeconds: r.wall_seconds,
    metrics: JSON.parse(r.metrics),
    batchId: r.batch_id,
    sweep: r.sweep ? JSON.parse(r.sweep) : {},
    error: r.error,
  };
}

function toRecord(r: RunRow): RunRecord {
  return {
    ...toSummary(r),
    spec: JSON.parse(r.spec),
    params: JSON.parse(r.params),
    counters: JSON.parse(r.counters),
    log: JSON.parse(r.log),
    appVersion: r.app_version,
    host: r.host ? JSON.parse(r.host) : null,
    threads: r.threads,
    attempts: r.attempts,
  };
}

const SORT_COLUMNS: Record<string, string> = {
  createdAt: 'seq',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  name: 'name',
  engine: 'engine',
  status: 'status',
  priority: 'priority',
  seed: 'seed',
  wallSeconds: 'wall_seconds',
};

function f64Blob(a: Float64Array): Buffer {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength);
}

function blobF64(b: Buffer): Float64Array {
  // Copy: the Buffer may be a view at an unaligned offset into a shared pool.
  const out = new Float64Array(b.byteLength / 8);
  new Uint8Array(out.buffer).set(b);
  return out;
}

/** Who runs a run: stored with it when it starts. */
export interface RunOrigin {
  host: RunRecord['host'];
  threads: number;
  appVersion: string;
  /** hostname:pid of the process running it. */
  owner: string;
}

/** How long a call that writes waits for a lock another process holds before it fails with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;

export class RunStore {
  /** Replaced only by reread. */
  db: Database.Database;
  /** The runs' artifact folders beside the database file (runs/<id>/). */
  private readonly runsDir: string;
  /** How a read-only store opens the database again (reread); undefined for one that writes. */
  private readonly openReading?: () => Database.Database;

  constructor(file: string, options: StoreOptions = {}) {
    this.runsDir = join(dirname(resolve(file)), 'runs');
    const binding = options.nativeBinding ? { nativeBinding: options.nativeBinding } : {};
    if (options.readOnly) {
      this.openReading = () => openForReadingMigrated(file, binding, options);
      this.db = this.openReading();
      return;
    }
    this.db = openDatabase(file, binding);
    try {
      this.db.pragma('journal_mode = WAL');
      this.db.pragma('synchronous = NORMAL');
      this.db.pragma('foreign_keys = ON');
      this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? BUSY_TIMEOUT_MS}`);
      this.migrate();
    } catch (err) {
      this.db.close(); // a read-only or full folder: the caller may open it again read-only
      throw err;
    }
  }

  private readonly statements = new Map<string, Database.Statement>();

  /** A prepared statement, prepared once per SQL text (preparing costs more than running). */
  private sql(text: string): Database.Statement {
    let st = this.statements.get(text);
    if (!st) this.statements.set(text, (st = this.db.prepare(text)));
    return st;
  }

  /** Applies the migrations the file lacks, each in its own transaction. */
  private migrate(): void {
    const current = this.db.pragma('user_version', { simple: true }) as number;
    if (current > MIGRATIONS.length) throw schemaVersionError(current);
    for (let v = current; v < MIGRATIONS.length; v++) {
      this.db.transaction(() => {
        const m = MIGRATIONS[v];
        if (typeof m === 'string') this.db.exec(m);
        else m(this.db);
        this.db.pragma(`user_version = ${v + 1}`);
      })();
    }
  }

  get schemaVersion(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  /**
   * A read-only store reads the folder's database again, for a change this process made to it through
   * services that can write (a run's removal on a full disk, JobQueue.removedByWriter): on a full disk it
   * reads a copy in memory (openForReading), which sees nothing written since. Statements are prepared
   * per call (sql), so a call reading in turns (seriesInSteps) goes on with the new connection.
   */
  reread(): void {
    if (!this.openReading) throw new Error('reread is for read-only stores: one that writes sees its own writes');
    const next = this.openReading();
    const before = this.db;
    this.db = next;
    this.statements.clear();
    before.close();
  }

  close(): void {
    // Lets SQLite refresh the planner's statistics where they went stale (cheap; recommended at
    // close). Skipped when it cannot write (a full disk, a read-only folder): closing must not fail.
    try {
      this.db.pragma('optimize');
    } catch {
      // nothing to do: the statistics stay as they were
    }
    this.db.close();
  }

  /**
   * Runs `fn` in a write transaction that takes the write lock at its start (BEGIN IMMEDIATE), so
   * that what it reads stays true until it commits in every process on the file: a deferred one
   * reads first and locks at its first write, and another process may write in between.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private noWait = 0;

  /**
   * Runs `fn` without waiting for a lock another process holds on the database: SQLITE_BUSY at once
   * instead of after BUSY_TIMEOUT_MS. For the queue's own writes (progress, logs, claims, outcomes),
   * which are skipped or tried again at its next poll: waiting, each would stop this whole process
   * (better-sqlite3 is synchronous) for as long as the lock lasts.
   */
  withoutWaiting<T>(fn: () => T): T {
    if (this.noWait++ === 0) this.db.pragma('busy_timeout = 0');
    try {
      return fn();
    } finally {
      if (--this.noWait === 0) this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  /** Changes when another connection (another process) commits to the database; not for this one's own writes. */
  dataVersion(): number {
    return this.db.pragma('data_version', { simple: true }) as number;
  }

  /** The seq of the newest run (0 when there is none). */
  lastSeq(): number {
    return (this.sql('SELECT max(seq) AS seq FROM runs').get() as { seq: number | null }).seq ?? 0;
  }

  /** Status and progress of the runs still to finish, and of every run after `afterSeq` (JobQueue.followOthers). */
  openRuns(afterSeq: number): { seq: number; id: string; status: RunStatus; done: number }[] {
    return this.sql("SELECT seq, id, status, progress_done AS done FROM runs WHERE status IN ('queued', 'running', 'paused') OR seq > ?").all(afterSeq) as {
      seq: number;
      id: string;
      status: RunStatus;
      done: number;
    }[];
  }

  /** The newest entry of the log of deleted runs (0: none). */
  lastDeletion(): number {
    return (this.sql('SELECT max(seq) AS seq FROM deleted_runs').get() as { seq: number | null }).seq ?? 0;
  }

  /** The runs deleted after entry `afterSeq` of the log, oldest first (JobQueue.followOthers). */
  deletedRuns(afterSeq: number): { seq: number; id: string }[] {
    return this.sql('SELECT seq, id FROM deleted_runs WHERE seq > ? ORDER BY seq').all(afterSeq) as { seq: number; id: string }[];
  }

  // ------------------------------------------------------------------ settings

  /** A setting of the data folder; null when it was never set. */
  setting(name: string): string | null {
    return (this.sql('SELECT value FROM settings WHERE name = ?').get(name) as { value: string } | undefined)?.value ?? null;
  }

  setSetting(name: string, value: string): void {
    this.sql('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value').run(name, value);
  }

  // ------------------------------------------------------------------ batches and runs

  createBatch(name: string, spec: RunSpecInput): string {
    const id = newId();
    this.sql('INSERT INTO batches (id, name, spec, created_at) VALUES (?, ?, ?, ?)').run(id, name, JSON.stringify(spec), now());
    return id;
  }

  batchName(id: string): string | null {
    const r = this.sql('SELECT name FROM batches WHERE id = ?').get(id) as { name: string } | undefined;
    return r?.name ?? null;
  }

  /** Counts of a batch's runs by status. */
  batchCounts(batchId: string): Record<RunStatus, number> {
    const out: Record<RunStatus, number> = { queued: 0, running: 0, paused: 0, done: 0, failed: 0, cancelled: 0 };
    const rows = this.sql(`SELECT ${this.statusSql} AS status, count(*) AS n FROM runs WHERE batch_id = @batchId GROUP BY 1`).all(this.statusArgs({ batchId })) as { status: RunStatus; n: number }[];
    for (const r of rows) out[r.status] = r.n;
    return out;
  }

  /** Whether a run of the batch is still to run (queued, running or paused): a seek of runs_batch_status, whatever the batch's size. */
  batchUnfinished(batchId: string): boolean {
    return this.sql(`SELECT 1 FROM runs WHERE batch_id = @batchId AND ${this.statusSql} IN ('queued', 'running', 'paused') LIMIT 1`).get(this.statusArgs({ batchId })) !== undefined;
  }

  /** Batches newest first (at most `limit`), or those of `ids`; with their runs' counts and swept paths. */
  listBatches(q: { ids?: string[]; limit: number }): BatchSummary[] {
    const rows = (
      q.ids
        ? q.ids.length
          ? this.db.prepare(`SELECT * FROM batches WHERE id IN (${q.ids.map(() => '?').join(', ')})`).all(...q.ids)
          : []
        : this.sql('SELECT * FROM batches ORDER BY created_at DESC, id LIMIT ?').all(q.limit)
    ) as { id: string; name: string; spec: string; created_at: string; finished_at: string | null }[];
    return rows.map((b) => {
      const spec = JSON.parse(b.spec) as RunSpecInput;
      return {
        id: b.id,
        name: b.name,
        createdAt: b.created_at,
        finishedAt: b.finished_at,
        counts: this.batchCounts(b.id),
        swept: sweptPaths(spec.params ?? {}),
        seeds: typeof spec.seed === 'object' ? sweepValues(spec.seed as Sweep).length : 0,
      };
    });
  }

  /** Names of the numeric metrics of any run, sorted (a skip-scan of run_metrics' (name, value) index). */
  metricNames(): string[] {
    const rows = this.sql(
      `WITH RECURSIVE n(name) AS (
         SELECT min(name) FROM run_metrics
         UNION ALL SELECT (SELECT min(name) FROM run_metrics WHERE name > n.name) FROM n WHERE n.name IS NOT NULL
       ) SELECT name FROM n WHERE name IS NOT NULL`,
    ).all() as { name: string }[];
    return rows.map((r) => r.name);
  }

  markBatchFinished(batchId: string): boolean {
    return this.sql('UPDATE batches SET finished_at = ? WHERE id = ? AND finished_at IS NULL').run(now(), batchId).changes > 0;
  }

  /** A batch that takes a run again (a re-run joins it: JobQueue.rerun) is no longer finished; markBatchFinished marks it anew once that run ends. */
  reopenBatch(batchId: string): void {
    this.sql('UPDATE batches SET finished_at = NULL WHERE id = ?').run(batchId);
  }

  /** Whether a run of the batch at this point (its seed and swept values, as encodeRun stores them) is done or still to run. */
  batchPointTaken({ batchId, seed, sweep }: BatchPoint): boolean {
    const point = Object.keys(sweep).length ? JSON.stringify(sweep) : null;
    return (
      this.sql(`SELECT 1 FROM runs WHERE batch_id = @batchId AND seed = @seed AND sweep IS @point AND ${this.statusSql} NOT IN ('failed', 'cancelled') LIMIT 1`).get(
        this.statusArgs({ batchId, seed, point }),
      ) !== undefined
    );
  }

  /** Inserts runs in one transaction (a sweep of thousands of points is one fsync). */
  insertRuns(runs: NewRun[]): string[] {
    return this.insertEncoded(runs.map((r) => this.encodeRun(r)));
  }

  /**
   * A new run's row as insertEncoded writes it, its JSON made and its id chosen: JobQueue.add makes a
   * sweep's 10,000 rows in turns of the event loop, before the one transaction that writes them.
   */
  encodeRun(r: NewRun): EncodedRun {
    return {
      id: newId(),
      batchId: r.batchId,
      name: r.name,
      engine: r.engine,
      spec: JSON.stringify(r.spec),
      params: JSON.stringify(r.params),
      seed: r.seed,
      status: r.status ?? 'queued',
      priority: r.priority,
      createdAt: now(),
      sweep: r.sweep && Object.keys(r.sweep).length ? JSON.stringify(r.sweep) : null,
    };
  }

  /** Inserts encoded runs (encodeRun) in one transaction; their ids. */
  insertEncoded(rows: EncodedRun[]): string[] {
    const stmt = this.sql(
      `INSERT INTO runs (id, batch_id, name, engine, spec, params, seed, status, priority, created_at, sweep)
       VALUES (@id, @batchId, @name, @engine, @spec, @params, @seed, @status, @priority, @createdAt, @sweep)`,
    );
    return this.transaction(() => rows.map((r) => (stmt.run(r), r.id)));
  }

  private row(id: string): RunRow | undefined {
    return this.sql('SELECT * FROM runs WHERE id = ?').get(id) as RunRow | undefined;
  }

  getRun(id: string): RunRecord | null {
    const r = this.row(id);
    return r ? this.shown(toRecord(r)) : null;
  }

  getSummary(id: string): RunSummary | null {
    const r = this.sql(`SELECT ${SUMMARY_COLUMNS} FROM runs WHERE id = ?`).get(id) as RunRow | undefined;
    return r ? this.shown(toSummary(r)) : null;
  }

  /** Runs stored as 'running' or 'paused' shown otherwise (see showInterrupted), and their statuses so as JSON. */
  private interrupted = new Map<string, InterruptedView>();
  private interruptedJson = '{}';

  /**
   * Shows these 'running' or 'paused' runs as the queue's recovery will leave them: their process
   * has ended, and no process that writes has taken them up yet (JobQueue.interruptedRuns): back in
   * the queue (not started, with a line in the log saying why), or ended cancelled (a stop that had
   * nothing to keep) or failed (a sphere import). For services opened read-only, which must not write.
   */
  showInterrupted(views: Map<string, InterruptedView>): void {
    this.interrupted = views;
    this.interruptedJson = JSON.stringify(Object.fromEntries([...views].map(([id, v]) => [id, v.status])));
  }

  /** The status column as shown (see showInterrupted), for WHERE, ORDER BY and GROUP BY; with statusArgs. */
  private get statusSql(): string {
    return this.interrupted.size ? "(CASE WHEN status IN ('running', 'paused') THEN coalesce((SELECT value FROM json_each(@interrupted) WHERE key = runs.id), status) ELSE status END)" : 'status';
  }

  private statusArgs<T extends Record<string, unknown>>(args: T): T {
    return this.interrupted.size ? { ...args, interrupted: this.interruptedJson } : args;
  }

  private shown<T extends RunSummary | RunRecord>(r: T): T {
    const v = r.status === 'running' || r.status === 'paused' ? this.interrupted.get(r.id) : undefined;
    if (!v) return r;
    // As finishRun records a cancel (keeping the metrics) or a failure, or requeue a run.
    const out: T = v.status === 'cancelled' || v.status === 'failed'
      ? { ...r, status: v.status, error: v.error ?? null, pausedAt: null, progress: { ...r.progress, phase: v.status } }
      : { ...r, status: v.status, startedAt: null, pausedAt: null, pausedSeconds: 0, progress: { done: 0, total: 0, phase: '', fromSeconds: 0, fromDone: 0, paceSeconds: 0, paceDone: 0 } };
    if ('log' in out && v.log) out.log = [...out.log, v.log];
    return out;
  }

  listRuns(q: ListQuery): { total: number; rows: RunSummary[]; next: string | null } {
    const where: string[] = [];
    const args: Record<string, unknown> = {};
    const f = q.filter ?? {};
    if (f.engine) {
      where.push('engine = @engine');
      args.engine = f.engine;
    }
    if (f.status?.length) {
      where.push(`${this.statusSql} IN (${f.status.map((_, i) => `@status${i}`).join(', ')})`);
      f.status.forEach((s, i) => (args[`status${i}`] = s));
    }
    if (f.text) {
      // runs.name: a metric sort joins run_metrics, which has a name too.
      where.push("(runs.name LIKE @text ESCAPE '\\' OR id LIKE @text ESCAPE '\\')");
      args.text = `%${f.text.replace(/[\\%_]/g, (c) => '\\' + c)}%`;
    }
    if (f.createdFrom) {
      where.push('created_at >= @createdFrom');
      args.createdFrom = new Date(f.createdFrom).toISOString();
    }
    if (f.createdTo) {
      where.push('created_at <= @createdTo');
      args.createdTo = new Date(f.createdTo).toISOString();
    }
    if (f.batchId) {
      where.push('batch_id = @batchId');
      args.batchId = f.batchId;
    }
    if (f.metric) {
      const cond = ['m.name = @metricName'];
      args.metricName = f.metric.name;
      if (f.metric.min !== undefined) {
        cond.push('m.value >= @metricMin');
        args.metricMin = f.metric.min;
      }
      if (f.metric.max !== undefined) {
        cond.push('m.value <= @metricMax');
        args.metricMax = f.metric.max;
      }
      where.push(`seq IN (SELECT m.run_seq FROM run_metrics m WHERE ${cond.join(' AND ')})`);
    }
    const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = (this.sql(`SELECT count(*) AS n FROM runs ${whereSql}`).get(this.statusArgs(args)) as { n: number }).n;
    const dir = (q.sort?.dir ?? 'desc') === 'asc' ? 'ASC' : 'DESC';
    /** The rows' WHERE, with the rows after q.after in the order `col` (NULL where nulls go), `dir`, then seq `seqDir`. */
    const pageWhere = (col: string, nulls: 'first' | 'last', seqDir: 'ASC' | 'DESC'): string => {
      if (!q.after) return whereSql;
      const [value, seq] = q.after;
      const past = dir === 'ASC' ? '>' : '<', pastSeq = seqDir === 'ASC' ? '>' : '<';
      args.afterSeq = seq;
      const bySeq = `seq ${pastSeq} @afterSeq`;
      let after: string;
      if (col === 'seq') after = bySeq;
      else if (value === null) after = nulls === 'first' ? `((${col} IS NULL AND ${bySeq}) OR ${col} IS NOT NULL)` : `(${col} IS NULL AND ${bySeq})`;
      else {
        args.afterValue = value;
        after = `(${col} ${past} @afterValue OR (${col} = @afterValue AND ${bySeq})${nulls === 'last' ? ` OR ${col} IS NULL` : ''})`;
      }
      return `WHERE ${[...where, after].join(' AND ')}`;
    };
    /** Where the page ends, for the next one's after (see listCursor): the last row's sort value and seq. */
    const next = (rows: (RunRow & { sort_value: string | number | null })[]): string | null => {
      const last = rows.at(-1);
      return last ? JSON.stringify([last.sort_value, last.seq]) : null;
    };
    if (q.sort && 'metric' in q.sort) {
      // Only the matching runs' seq and metric value are sorted (a scan of the filter's index or of a
      // small covering one, and a lookup in run_metrics' key per run: ~1 µs a run, bench/store.ts);
      // the page's rows are read after. Runs without the metric go last either way; ties newest first.
      const rows = this.db
        .prepare(
          `WITH page AS (
             SELECT runs.seq AS page_seq, m.value AS sort_value FROM runs LEFT JOIN run_metrics m ON m.run_seq = runs.seq AND m.name = @sortMetric
             ${pageWhere('m.value', 'last', 'DESC')} ORDER BY m.value IS NULL, m.value ${dir}, runs.seq DESC LIMIT @limit OFFSET @offset)
           SELECT ${SUMMARY_COLUMNS}, sort_value FROM page JOIN runs ON runs.seq = page.page_seq ORDER BY sort_value IS NULL, sort_value ${dir}, page_seq DESC`,
        )
        .all(this.statusArgs({ ...args, sortMetric: q.sort.metric, limit: q.limit, offset: q.offset })) as (RunRow & { sort_value: number | null })[];
      return { total, rows: rows.map((r) => this.shown(toSummary(r))), next: next(rows) };
    }
    const sortCol = q.sort?.field === 'status' ? this.statusSql : SORT_COLUMNS[q.sort?.field ?? 'createdAt'];
    // seq breaks ties so that paging is stable; runs of equal priority come in the queue's order
    // (oldest first, as nextQueued starts them), which the batch manager's queue table shows.
    const seqDir = sortCol === 'priority' ? 'ASC' : dir;
    const order = sortCol === 'seq' ? `seq ${dir}` : `${sortCol} ${dir}, seq ${seqDir}`;
    // SQLite's NULL is below every value: first ascending, last descending (a run not started yet by startedAt).
    const rowsWhere = pageWhere(sortCol, dir === 'ASC' ? 'first' : 'last', seqDir);
    const rows = this.db
      .prepare(`SELECT ${SUMMARY_COLUMNS}, ${sortCol} AS sort_value FROM runs ${rowsWhere} ORDER BY ${order} LIMIT @limit OFFSET @offset`)
      .all(this.statusArgs({ ...args, limit: q.limit, offset: q.offset })) as (RunRow & { sort_value: string | number | null })[];
    return { total, rows: rows.map((r) => this.shown(toSummary(r))), next: next(rows) };
  }

  /**
   * The next run to start: queued, highest priority, then oldest; never one of `exclude` (runs this
   * process already handles); when `include` is given, only one of those.
   */
  nextQueued(exclude: ReadonlySet<string> = new Set(), include?: ReadonlySet<string>): RunRecord | null {
    const ids = (set: ReadonlySet<string>) => [...set].map(() => '?').join(', ');
    const where = ["status = 'queued'"];
    if (exclude.size) where.push(`id NOT IN (${ids(exclude)})`);
    if (include) where.push(`id IN (${ids(include)})`);
    if (include?.size === 0) return null;
    // Not cached: the number of placeholders varies.
    const r = this.db
      .prepare(`SELECT * FROM runs WHERE ${where.join(' AND ')} ORDER BY priority DESC, seq ASC LIMIT 1`)
      .get(...exclude, ...(include ?? [])) as RunRow | undefined;
    return r ? toRecord(r) : null;
  }

  /**
   * Counts of the runs still to run, by status: what the queue's state says, at each run's start and
   * end and each look at the folder. A seek of runs_status for each: counting every status scanned
   * the whole index (4.4 ms of CPU with 100,000 runs done).
   */
  countUnfinished(): Record<'queued' | 'running' | 'paused', number> {
    const out = { queued: 0, running: 0, paused: 0 };
    const rows = this.sql(`SELECT ${this.statusSql} AS status, count(*) AS n FROM runs WHERE ${this.statusSql} IN ('queued', 'running', 'paused') GROUP BY 1`).all(this.statusArgs({})) as { status: keyof typeof out; n: number }[];
    for (const r of rows) out[r.status] = r.n;
    return out;
  }

  /**
   * Claims a queued run for this process: false when another process (the app and a CLI may share a
   * data directory) took it first.
   */
  claim(id: string, info: RunOrigin, from: 'queued' | 'paused' = 'queued'): boolean {
    return (
      this.sql(
        `UPDATE runs SET status = 'running', started_at = ?, finished_at = NULL, paused_at = NULL, paused_seconds = 0, wall_seconds = NULL, error = NULL,
           ${PROGRESS_CLEARED}, phase = 'starting', host = ?, threads = ?, app_version = ?,
           attempts = attempts + 1, owner = ?
         WHERE id = ? AND status = ?`,
      ).run(now(), JSON.stringify(info.host), info.threads, info.appVersion, info.owner, id, from).changes === 1
    );
  }

  /**
   * A new progress scale begins at the attempt's first report and where the total changes or `done`
   * falls (an engine's next phase starting from 0): its working seconds and `done` then are kept
   * (RunProgress.fromSeconds). The attempt's first report begins one because a run resumed from its
   * checkpoint reports the checkpoint's progress at once: counted from 0 at the attempt's start, a
   * resumed packing at 60 % read as done in seconds. Its start-up (and loading the checkpoint) is
   * left out of the pace: it does not come again. A run not started has worked 0 s.
   *
   * The time left goes by the pace since a recent report (RunProgress.paceSeconds), not since the
   * scale began: a phase's parts go at different paces. A report where `done` grows becomes the
   * next one to go by (progress_next_*) once the one before it is a quarter of the scale's working
   * time old; the one it replaces becomes the one gone by. So the pace is that of the last quarter
   * to about half of the scale, between two reports where `done` grew (taken at a report that only
   * repeats `done`, a step of 2 s reported every second read 70 s left for 80).
   */
  setProgress(id: string, p: { done: number; total: number; phase: string; counters?: Record<string, number> }): void {
    const worked = 'max(0, coalesce((julianday(coalesce(paused_at, @now)) - julianday(started_at)) * 86400 - paused_seconds, 0))';
    // A new scale begins: the attempt's first report (claim set the total to 0), a changed total, or `done` falling.
    const newScale = '(progress_total = 0 OR @total <> progress_total OR @done < progress_done)';
    const moveUp = `(@done > progress_done AND ${worked} - progress_next_seconds >= (${worked} - progress_from_seconds) / 4)`;
    this.sql(
      `UPDATE runs SET
         progress_from_seconds = CASE WHEN ${newScale} THEN ${worked} ELSE progress_from_seconds END,
         progress_from_done = CASE WHEN ${newScale} THEN @done ELSE progress_from_done END,
         progress_pace_seconds = CASE WHEN ${newScale} THEN ${worked} WHEN ${moveUp} THEN progress_next_seconds ELSE progress_pace_seconds END,
         progress_pace_done = CASE WHEN ${newScale} THEN @done WHEN ${moveUp} THEN progress_next_done ELSE progress_pace_done END,
         progress_next_seconds = CASE WHEN ${newScale} OR ${moveUp} THEN ${worked} ELSE progress_next_seconds END,
         progress_next_done = CASE WHEN ${newScale} OR ${moveUp} THEN @done ELSE progress_next_done END,
         progress_done = @done, progress_total = @total, phase = @phase, counters = coalesce(@counters, counters)
       WHERE id = @id`,
    ).run({ done: p.done, total: p.total, phase: p.phase, counters: p.counters ? JSON.stringify(p.counters) : null, now: now(), id });
  }

  /**
   * A run that has started and is paused from now on starts a pause (paused_at); leaving it adds the
   * pause to paused_seconds. A run paused before it started has no time to stop.
   */
  setStatus(id: string, status: RunStatus): void {
    this.sql(
      `UPDATE runs SET status = @status,
         paused_seconds = paused_seconds + CASE WHEN paused_at IS NOT NULL AND @status <> 'paused' THEN max(0, (julianday(@now) - julianday(paused_at)) * 86400) ELSE 0 END,
         paused_at = CASE WHEN @status = 'paused' AND started_at IS NOT NULL THEN coalesce(paused_at, @now) ELSE NULL END
       WHERE id = @id`,
    ).run({ status, now: now(), id });
  }

  setPriority(id: string, priority: number): void {
    this.sql('UPDATE runs SET priority = ? WHERE id = ?').run(priority, id);
  }

  appendLog(id: string, lines: string[]): void {
    if (!lines.length) return;
    const r = this.sql('SELECT log FROM runs WHERE id = ?').get(id) as { log: string } | undefined;
    if (!r) return;
    // Keep the last 1,000 lines: a run that logs every step must not grow the row without bound.
    const log = (JSON.parse(r.log) as string[]).concat(lines).slice(-1000);
    this.sql('UPDATE runs SET log = ? WHERE id = ?').run(JSON.stringify(log), id);
  }

  /** Stores the outcome of a run, its metrics, series and artifacts, in one transaction. */
  finishRun(id: string, out: FinishedRun): void {
    const r = this.row(id);
    if (!r) return;
    this.transaction(() => {
      const metrics = out.metrics ?? {};
      this.sql(
        `UPDATE runs SET status = ?, finished_at = ?, paused_at = NULL, wall_seconds = ?, metrics = ?, error = ?,
           progress_done = CASE WHEN ? = 'done' THEN progress_total ELSE progress_done END, phase = ?
         WHERE seq = ?`,
      ).run(out.status, now(), out.wallSeconds ?? null, JSON.stringify(metrics), out.error ?? null, out.status, out.status, r.seq);
      this.sql('DELETE FROM run_metrics WHERE run_seq = ?').run(r.seq);
      const metric = this.sql('INSERT INTO run_metrics (run_seq, name, value) VALUES (?, ?, ?)');
      for (const [name, value] of Object.entries(metrics)) {
        if (typeof value === 'number' && Number.isFinite(value)) metric.run(r.seq, name, value);
      }
      this.sql('DELETE FROM series WHERE run_seq = ?').run(r.seq);
      const series = this.sql('INSERT INTO series (run_seq, name, x_label, y_label, kind, x, y) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const s of out.series ?? []) series.run(r.seq, s.name, s.xLabel, s.yLabel, s.kind, f64Blob(s.x), f64Blob(s.y));
      this.sql('DELETE FROM artifacts WHERE run_seq = ?').run(r.seq);
      const art = this.sql('INSERT INTO artifacts (run_seq, kind, name, path, bytes, checksum, meta) VALUES (?, ?, ?, ?, ?, ?, ?)');
      for (const a of out.artifacts ?? []) art.run(r.seq, a.kind, a.name, a.path, a.bytes, a.checksum, JSON.stringify(a.meta));
    });
  }

  /** Back to the queue for another attempt: keeps the log, clears the outcome of the last attempt. */
  requeue(id: string, reason: string, status: 'queued' | 'paused' = 'queued'): void {
    this.appendLog(id, [`${now()} ${reason}`]);
    this.sql(`UPDATE runs SET status = ?, started_at = NULL, paused_at = NULL, paused_seconds = 0, owner = NULL, ${PROGRESS_CLEARED}, phase = '' WHERE id = ?`)
      .run(status, id);
  }

  /** Queued runs that have started before (attempts): those an interruption re-queued. */
  requeuedRuns(): string[] {
    return (this.sql("SELECT id FROM runs WHERE status = 'queued' AND attempts > 0").all() as { id: string }[]).map((r) => r.id);
  }

  /** Runs left 'running' by a crash of the process that ran them. */
  runningRuns(): { id: string; owner: string | null; status: RunStatus }[] {
    return this.sql("SELECT id, owner, status FROM runs WHERE status IN ('running', 'paused') AND started_at IS NOT NULL ORDER BY seq").all() as {
      id: string;
      owner: string | null;
      status: RunStatus;
    }[];
  }

  deleteRun(id: string): boolean {
    return this.sql('DELETE FROM runs WHERE id = ?').run(id).changes > 0;
  }

  /**
   * A run's series, a step per column of numbers (run it with turns.ts inTurns): SQLite reads a blob
   * whole, and a ball mill's collision frequency per ball is 16 MB a column at 2,000,000 balls (all
   * its series in one query held the host's thread 30-60 ms). A run deleted between two steps is
   * not_found, not a partial answer.
   */
  *seriesInSteps(id: string): Generator<void, RunSeries[], void> {
    const rows = this.sql('SELECT s.id, s.name, s.x_label, s.y_label, s.kind FROM series s JOIN runs r ON r.seq = s.run_seq WHERE r.id = ? ORDER BY s.id')
      .all(id) as { id: number; name: string; x_label: string; y_label: string; kind: 'line' | 'bar' }[];
    const column = (seriesId: number, name: 'x' | 'y'): Float64Array => {
      const r = this.sql(`SELECT ${name} AS blob FROM series WHERE id = ?`).get(seriesId) as { blob: Buffer } | undefined;
      if (!r) throw new ApiError('not_found', `run ${id} was deleted while its series were read`);
      return blobF64(r.blob);
    };
    const out: RunSeries[] = [];
    for (const s of rows) {
      yield;
      const x = column(s.id, 'x');
      yield;
      out.push({ name: s.name, xLabel: s.x_label, yLabel: s.y_label, kind: s.kind, x, y: column(s.id, 'y') });
    }
    return out;
  }

  artifacts(id: string): RunArtifact[] {
    const rows = this.sql('SELECT a.* FROM artifacts a JOIN runs r ON r.seq = a.run_seq WHERE r.id = ? ORDER BY a.id')
      .all(id) as { id: number; kind: 'table' | 'volume'; name: string; path: string; bytes: number; checksum: string; meta: string }[];
    return rows.map((a) => ({ id: a.id, kind: a.kind, name: a.name, path: this.artifactPath(id, a.path), bytes: a.bytes, checksum: a.checksum, meta: JSON.parse(a.meta) }));
  }

  /**
   * Where a run's artifact is now. Paths are stored absolute, naming the data folder the run was
   * made in; a folder moved or copied since (a new disk, a colleague's machine) has the file under
   * its own runs/<id>/, which wins when it is there.
   */
  private artifactPath(id: string, stored: string): string {
    const marker = `${sep}runs${sep}${id}${sep}`;
    const k = stored.lastIndexOf(marker);
    if (k < 0) return stored;
    const here = join(this.runsDir, id, stored.slice(k + marker.length));
    return here !== stored && existsSync(here) ? here : stored;
  }

  // ------------------------------------------------------------------ shapes

  listShapes(): Shape[] {
    const rows = this.sql('SELECT * FROM shapes ORDER BY builtin DESC, name COLLATE NOCASE').all() as ShapeRow[];
    return rows.map(toShape);
  }

  getShape(id: string): Shape | null {
    const r = this.sql('SELECT * FROM shapes WHERE id = ?').get(id) as ShapeRow | undefined;
    return r ? toShape(r) : null;
  }

  /**
   * Inserts or replaces a shape; built-ins are written with a fixed id at start-up. Without
   * `voxelisation` a replaced shape keeps the one it had.
   */
  putShape(s: { id?: string; name: string; params: Record<string, unknown> & { kind: string }; voxelisation?: ShapeVoxelisation; builtin?: boolean }): Shape {
    const id = s.id ?? newId();
    const existing = this.getShape(id);
    const t = now();
    this.sql(
      `INSERT INTO shapes (id, name, kind, params, voxelisation, builtin, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, kind = excluded.kind, params = excluded.params,
         voxelisation = coalesce(excluded.voxelisation, voxelisation), updated_at = excluded.updated_at`,
    ).run(id, s.name, s.params.kind, JSON.stringify(s.params), s.voxelisation ? JSON.stringify(s.voxelisation) : null, s.builtin ? 1 : 0, existing?.createdAt ?? t, t);
    return this.getShape(id)!;
  }

  deleteShape(id: string): boolean {
    return this.sql('DELETE FROM shapes WHERE id = ?').run(id).changes > 0;
  }

  // ------------------------------------------------------------------ presets

  listPresets(engine?: string): Preset[] {
    const rows = (
      engine
        ? this.sql('SELECT * FROM presets WHERE engine = ? ORDER BY name COLLATE NOCASE').all(engine)
        : this.sql('SELECT * FROM presets ORDER BY name COLLATE NOCASE').all()
    ) as { id: string; name: string; spec: string; created_at: string }[];
    return rows.map((p) => ({ id: p.id, name: p.name, spec: JSON.parse(p.spec), createdAt: p.created_at }));
  }

  savePreset(name: string, spec: RunSpecInput): Preset {
    const p = { id: newId(), name, spec, createdAt: now() };
    this.sql('INSERT INTO presets (id, name, engine, spec, created_at) VALUES (?, ?, ?, ?, ?)').run(p.id, name, spec.engine, JSON.stringify(spec), p.createdAt);
    return p;
  }

  deletePreset(id: string): boolean {
    return this.sql('DELETE FROM presets WHERE id = ?').run(id).changes > 0;
  }
}

/**
 * A connection whose temporary files SQLite keeps in memory (temp_store MEMORY): a transaction's
 * statement journal past 64 KiB (finishing many runs in one), sorts past the page cache, temporary
 * tables. By default it writes them, opened and at once unlinked, to SQLITE_TMPDIR, TMPDIR or else
 * /var/tmp, outside the data folder where everything PackBench writes goes (a full or shared /var/tmp
 * would fail or expose a write). Memory is the one place left: better-sqlite3 is built without the
 * temp_store_directory pragma (SQLITE_OMIT_DEPRECATED), and SQLite reads SQLITE_TMPDIR once per
 * process, not per data folder. What they hold is small: the pages one statement or savepoint
 * changes, and sorts of rows the queries bound (bench/store.ts: peak resident set unchanged).
 */
function openDatabase(file: string | Buffer, options: Database.Options): Database.Database {
  const db = new Database(file, options);
  db.pragma('temp_store = MEMORY');
  return db;
}

/**
 * A database to read: the file opened read-only when SQLite can (a WAL database needs its -shm file,
 * which a read-only or full folder may not let it create), else a copy of the file in memory,
 * marked as a rollback-journal database since an in-memory copy cannot be in WAL mode. A folder
 * without a database reads as an empty one. The schema must be this version's (no migration here).
 */
function openForReading(file: string, binding: Database.Options): Database.Database {
  let db: Database.Database;
  if (!existsSync(file)) {
    db = openDatabase(':memory:', binding);
    for (const m of MIGRATIONS) {
      if (typeof m === 'string') db.exec(m);
      else m(db);
    }
    db.pragma(`user_version = ${MIGRATIONS.length}`);
    db.pragma('query_only = ON');
  } else {
    try {
      db = openDatabase(file, { ...binding, readonly: true, fileMustExist: true });
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch {
      const bytes = readFileSync(file);
      if (bytes[18] === 2) bytes[18] = bytes[19] = 1;
      db = openDatabase(bytes, { ...binding, readonly: true });
    }
  }
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== MIGRATIONS.length) {
    db.close();
    throw schemaVersionError(version);
  }
  return db;
}

/**
 * openForReading of a database an older PackBench wrote, migrated first where the folder can be
 * written, as the app or a command that writes would migrate it at its next opening. Commands that
 * only read (`packbench runs list`) open read-only, and after an update that added a migration the
 * first of them refused the whole folder, telling the user to run one that writes (`queue run`,
 * which starts the queued runs). Where the migration cannot be made (a read-only or full folder),
 * the schema error stands, with why.
 */
function openForReadingMigrated(file: string, binding: Database.Options, options: StoreOptions): Database.Database {
  try {
    return openForReading(file, binding);
  } catch (err) {
    if ((err as { olderSchema?: boolean }).olderSchema !== true) throw err;
    try {
      new RunStore(file, { ...options, readOnly: false }).close();
    } catch (fault) {
      throw Object.assign(new Error(`${(err as Error).message} (migrating it failed here: ${(fault as Error).message})`), { code: 'PACKBENCH_SCHEMA_VERSION' });
    }
    return openForReading(file, binding);
  }
}

/**
 * A database of another schema version than this PackBench's: written by a newer PackBench, or an
 * older one's that a read-only open cannot migrate (olderSchema). Its code marks it as a state of the data folder,
 * not a fault of ours (the CLI prints the message without a stack).
 */
function schemaVersionError(version: number): Error {
  const message = version > MIGRATIONS.length
    ? `database schema version ${version} is newer than this PackBench (${MIGRATIONS.length}); update PackBench`
    : `database schema version ${version} is older than this PackBench's (${MIGRATIONS.length}) and can be migrated only where the data folder can be written: make it writable, then open it with any packbench command, the app or the web host`;
  return Object.assign(new Error(message), { code: 'PACKBENCH_SCHEMA_VERSION', olderSchema: version < MIGRATIONS.length });
}

interface ShapeRow {
  id: string;
  name: string;
  kind: string;
  params: string;
  voxelisation: string | null;
  builtin: number;
  created_at: string;
  updated_at: string;
}

function toShape(r: ShapeRow): Shape {
  return {
    id: r.id,
    name: r.name,
    kind: r.kind,
    params: JSON.parse(r.params),
    voxelisation: r.voxelisation ? JSON.parse(r.voxelisation) : null,
    builtin: r.builtin === 1,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}
