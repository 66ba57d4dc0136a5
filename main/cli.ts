/**
 * `packbench`: the services on the command line. Every command takes --data DIR (default: the
 * app's data directory, so the CLI sees the app's runs) and --json (machine-readable output on
 * stdout; progress and messages go to stderr).
 *
 * Exit codes: 0 success; 1 a run failed or was cancelled; 2 bad input (spec, arguments, files);
 * 3 other errors (a full or locked data folder, a fault of ours).
 *
 * `main(argv, io)` runs one command line in this process and resolves with its exit code, so tests
 * drive the CLI without spawning a process; bin/packbench.mjs calls it with the real argv and stdio.
 */
import { Command, CommanderError, Help, InvalidArgumentError, Option } from 'commander';
import { existsSync, readFileSync, statfsSync, statSync } from 'node:fs';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { ApiError, FINAL_STATUSES, MAX_PARAMS_DEPTH, MAX_SEED, parseStrict, runSpecSchema, RUN_STATUSES, SPHERE_IMPORT_ENGINE, SPHERE_PERIODIC_SIDES, progressPercent, remainingSeconds, workingSeconds, type ApiIssue, type MemoryEstimate, type RunRecord, type RunSummary, type SweepSpec, type SpherePeriodicSides } from './api';
import { appVersion, defaultDataDir } from './services/datadir';
import { EXPORT_FORMATS, exportFormatList, exportRun, FormatNotApplicable } from './services/exports';
import { exportableRun, notExportable, storageFault, storageFaultMeaning } from './services/handlers';
import { openServices, type Services, type ServicesOptions } from './services/services';
import { formatBytes } from './services/pool';
import { STOP_GRACE_MS } from './services/queue';
import { walkLimitPassed } from './wire';
import { parseJsonText } from '../core/io/json';
import { ENGINES, metricInfo } from '../core/common/engines';
import { metricUnitIn } from '../core/common/engine';

/** Where a command line writes, and whether stderr is a terminal (then progress bars are drawn) and how wide. */
export interface CliIo {
  stdout(text: string): void;
  stderr(text: string): void;
  stderrIsTTY: boolean;
  /** The terminal's width in characters, when stderr is one. */
  stderrColumns?: number;
}

export const processIo: CliIo = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
  get stderrIsTTY() {
    return process.stderr.isTTY === true;
  },
  get stderrColumns() {
    return process.stderr.columns;
  },
};

interface GlobalOptions {
  data?: string;
  json?: boolean;
}

/** An error with its exit code, reported as one line. */
export class CliError extends Error {
  constructor(message: string, readonly exitCode: number) {
    super(message);
  }
}

/**
 * Numbers as a user writes them, in decimal: Number() also reads '0x10' as 16, '0b10' as 2 and
 * '1e1' as an integer 10, so a slip of the keyboard became another value without a word.
 */
const DECIMAL_INTEGER = /^\s*[+-]?\d+\s*$/;
const DECIMAL_NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

function intArg(name: string, min: number, max: number) {
  return (v: string) => {
    const n = Number(v);
    if (!DECIMAL_INTEGER.test(v)) throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}], written in decimal digits, got '${v}'`);
    if (n < min || n > max) throw new InvalidArgumentError(`${name} must be an integer in [${min}, ${max}]`);
    return n;
  };
}

function positiveArg(name: string) {
  return (v: string) => {
    const n = Number(v);
    if (!DECIMAL_NUMBER.test(v)) throw new InvalidArgumentError(`${name} must be a number > 0, written in decimal (2.5, 1e3), got '${v}'`);
    if (!(n > 0) || !Number.isFinite(n)) throw new InvalidArgumentError(`${name} must be a number > 0`);
    return n;
  };
}

function boxArg(v: string): [number, number, number] {
  const parts = v.split(',').map((p) => (DECIMAL_NUMBER.test(p) ? Number(p) : NaN));
  if (parts.length !== 3 || !parts.every((n) => n > 0 && Number.isFinite(n))) throw new InvalidArgumentError('--box must be three lengths > 0: X,Y,Z, written in decimal');
  return parts as [number, number, number];
}

function periodicArg(v: string): SpherePeriodicSides {
  if (!Object.hasOwn(SPHERE_PERIODIC_SIDES, v)) throw new InvalidArgumentError(`--periodic must be one of ${Object.keys(SPHERE_PERIODIC_SIDES).map((k) => `'${k}'`).join(', ')}`);
  return v as SpherePeriodicSides;
}

/**
 * What each export format writes, under the runs that have what it needs: the README sends a user
 * here for the formats, and a bare list of ids (vti, raw, lammps) told them neither what a file holds
 * nor which of their runs can give it.
 */
function exportFormatsHelp(): string {
  const help = new Help();
  const width = Math.max(...EXPORT_FORMATS.map((f) => f.id.length));
  const groups = new Map<string, ReturnType<typeof exportFormatList>>();
  for (const f of exportFormatList()) groups.set(f.appliesTo, [...(groups.get(f.appliesTo) ?? []), f]);
  const blocks = [...groups].map(([appliesTo, formats]) =>
    [help.boxWrap(`For ${appliesTo}:`, 80), ...formats.map((f) => help.formatItem(f.id, width, f.label, help))].join('\n'),
  );
  return `\nFormats (a run that lacks what one needs is refused, saying what it needs):\n\n${blocks.join('\n\n')}\n`;
}

/** Options of the commands that run specs (`run`, `queue run`); one place to add more. */
export interface RunOptions {
  threads: number;
  concurrency?: number;
  checkpointSeconds?: number;
}

function addRunOptions(cmd: Command, concurrencyHelp: string): Command {
  // Said in the help: a user gave --threads 8 to a stacking run and was refused only after writing it.
  const threaded = ENGINES.filter((e) => e.helper).map((e) => e.id).join(' and ');
  return cmd
    .option('--threads <n>', `threads per run, an integer in [1, 256] (${threaded} runs share their work among them; the other engines' runs take one)`, intArg('--threads', 1, 256), 1)
    .option('--concurrency <n>', concurrencyHelp, intArg('--concurrency', 1, 256))
    .option('--checkpoint-seconds <n>', 'seconds between checkpoints of a run, an integer in [0, 86400] (an interrupted run resumes from its last; 0: none; default 60)', intArg('--checkpoint-seconds', 0, 86400));
}

function runServiceOptions(o: RunOptions): Partial<ServicesOptions> {
  return { threadsPerRun: o.threads, concurrency: o.concurrency, checkpointSeconds: o.checkpointSeconds };
}

/** A spec file's text as JSON: a UTF-8 byte order mark (Windows editors write one) is allowed. */
function readJsonFile(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${what} ${file}: ${(err as Error).message}`, 2);
  }
  try {
    return parseJsonText(text);
  } catch (err) {
    throw new CliError(`${file}: ${(err as Error).message}`, 2);
  }
}

/** Reads and checks a spec file; issue paths are relative to the file ('params.box.size'). */
function readSpec(file: string): SweepSpec {
  const value = readJsonFile(file, 'spec');
  // As the API refuses it (the spec is one level down in its params): deeper, the sweep search overflowed the stack (exit 3).
  if (walkLimitPassed(value, MAX_PARAMS_DEPTH - 1)) throw new CliError(`${file}: invalid spec: nested deeper than ${MAX_PARAMS_DEPTH - 1} levels (lists and objects within each other)`, 2);
  try {
    return parseStrict(runSpecSchema, value, '') as SweepSpec;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    throw new CliError(`${file}: invalid spec:\n${(err.issues ?? []).map((i) => `  ${i.path || 'the spec'}: ${i.message}`).join('\n')}`, 2);
  }
}

/**
 * Checks a spec read from `file` as runs.validate does: its runs, the memory the largest needs and
 * the budget (a run over the budget is refused here) and the fields it wrote that have no effect
 * (warnings, which never refuse); an invalid one is reported against the file's fields.
 */
async function checkFile(s: Services, file: string, spec: SweepSpec, priority: number) {
  try {
    const rows = await s.queue.validate(spec, priority, '');
    return { rows, ...s.queue.memoryEstimate(rows), warnings: await s.registry.warnings(spec.engine, rows) };
  } catch (err) {
    throw invalidSpec(err, `${file}: invalid spec`);
  }
}

/**
 * A spec the services refused as invalid, as one error of exit code 2: `head`, the sweep point when
 * one is named, then a line per issue and per field with no effect (fixed with the errors at once,
 * when the spec could be read whole); `where` names a path as the user wrote it. Other errors as they are.
 */
function invalidSpec(err: unknown, head: string, where = (path: string) => path): unknown {
  if (!(err instanceof ApiError && err.code === 'invalid')) return err;
  const lines = err.issues?.map((i) => `  ${where(i.path)}: ${i.message}`) ?? [`  ${err.message}`];
  // For a sweep, which point: 'sweep point 2 of 3 (name [field=value])' (JobQueue.validate).
  const point = err.message.startsWith('sweep point ') ? ` at ${err.message.split(': invalid request:')[0]}` : '';
  return new CliError(`${head}${point}:\n${[...lines, ...warningLines(err.warnings ?? [], where)].join('\n')}`, 2);
}

/** Queues a spec read from `file` (checked by checkFile), with what checkFile says of it. */
async function enqueueFile(s: Services, file: string, spec: SweepSpec, priority: number) {
  const { rows, ...checked } = await checkFile(s, file, spec, priority);
  return { ...(await s.queue.add(spec, rows)), ...checked };
}

/** The fields a spec wrote that have no effect, a line each for stderr ('warning: params.skin: has no effect with ...'). */
function warningLines(warnings: readonly ApiIssue[], where = (path: string) => path): string[] {
  return warnings.map((w) => `warning: ${where(w.path)}: ${w.message}`);
}

/** One `runs rerun --set params.PATH=VALUE`: the path below params, and the value. */
interface SetOption {
  path: string[];
  value: unknown;
}

/**
 * Reads `--set params.PATH=VALUE` (and gathers them, refusing a field set twice, or set and set
 * inside): VALUE is JSON (2000, true, [4,4,4], {"$sweep":[1,2]}, "text"), a decimal number (.5),
 * else the text as typed (params.cdo=spatialTree); text that starts as JSON only ({, [ or ") must be JSON. Whether the field
 * exists and takes the value is the services' to say (runs.rerun), as for a spec.
 */
function setArg(v: string, previous: SetOption[] = []): SetOption[] {
  const eq = v.indexOf('=');
  const path = eq < 0 ? [] : v.slice(0, eq).split('.');
  if (eq < 0 || path[0] !== 'params' || path.length < 2 || path.includes('')) {
    throw new InvalidArgumentError("write params.FIELD=VALUE: a field of the run's params by its dotted path, e.g. params.duration=1, params.balls.count=2000, params.box.size.2=8");
  }
  const text = v.slice(eq + 1), name = path.join('.');
  let value: unknown;
  try {
    value = parseJsonText(text);
  } catch (err) {
    if (/^\s*[[{"]/.test(text)) throw new InvalidArgumentError(`${name}: the value is ${(err as Error).message}`);
    // A number as the other options read one ('.5', '2.', '+3': not JSON), else text.
    value = DECIMAL_NUMBER.test(text) ? Number(text) : text;
  }
  const under = (a: string[], b: string[]) => a.length <= b.length && a.every((k, i) => k === b[i]);
  const clash = previous.find((p) => under(p.path, path.slice(1)) || under(path.slice(1), p.path));
  if (clash) throw new InvalidArgumentError(`${name}: params.${clash.path.join('.')} is set already; set each field once`);
  return [...previous, { path: path.slice(1), value }];
}

/** The overrides of runs.rerun that --set options give: { balls: { count: 2000 } } for params.balls.count=2000. */
function overridesOf(sets: readonly SetOption[]): Record<string, unknown> {
  const overrides: Record<string, unknown> = {};
  // defineProperty: a key '__proto__' stays a field (the services refuse it as unknown), not the prototype.
  const own = (node: Record<string, unknown>, key: string, value: unknown) => Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  for (const { path, value } of sets) {
    let node = overrides;
    for (const key of path.slice(0, -1)) node = (Object.hasOwn(node, key) ? node[key] : own(node, key, {})[key]) as Record<string, unknown>;
    own(node, path[path.length - 1], value);
  }
  return overrides;
}

/** ' (settling: round 3 of up to 50, 19 deep pairs 6.2 %, about 40 s left)' after a run under way, as `runs show` says it; '' for the others. */
function paceText(r: RunSummary): string {
  const pace = runPace(r);
  return pace ? ` (${r.progress.phase ? `${r.progress.phase} ` : ''}${progressPercent(r, 1)} %, ${timeLeft(pace.etaSeconds)})` : '';
}

/**
 * Who has run `id` working in another process (JobQueue.runners), and how to end it should that
 * process be gone: PackBench takes up only the runs of ended processes of this machine.
 */
function runnerText(id: string, r: { host: string; pid: number; state: 'running' | 'elsewhere' }): string {
  const end = `\`packbench runs cancel ${id}\` ends it (its log and metrics kept; \`packbench runs rerun ${id}\` runs it again), or \`packbench runs rm ${id}\` deletes it with its files`;
  return r.state === 'elsewhere'
    ? `runs in process ${r.pid} on ${r.host}, not this machine: PackBench cannot ask there whether it still runs, so it never takes it up. If it no longer runs (that machine crashed, or this machine was called ${r.host} then), ${end}`
    : `runs in process ${r.pid} on this machine (${r.host}); if that process is no longer PackBench (it ended and another program took its number), ${end}`;
}

/** Lines under a list of runs for those among them working on another machine (runnerText): the list says only 'running'. */
function elsewhereLines(s: Services, ids: string[]): string[] {
  const runners = s.queue.runners();
  return ids.flatMap((id) => {
    const r = runners.get(id);
    return r?.state === 'elsewhere' ? [`run ${id} ${runnerText(id, r)}`] : [];
  });
}

/**
 * Why queued runs wait, for `queue list` beside the process working through them: a full disk,
 * which that process says only on its stderr and in its state (QueueState.waiting), since nothing
 * can be stored meanwhile. Null while the disk has room (one with a few KiB left may still be too
 * full for a run: only the working process knows it then).
 */
function fullDisk(dir: string): string | null {
  let free: number;
  try {
    free = statfsSync(dir).bavail;
  } catch {
    return null; // a hint: the list stands without it
  }
  return free === 0 ? `${storageFaultMeaning('ENOSPC')} (0 B free on ${dir}): queued runs start, and the outcomes of ended runs are stored, once space is freed on it` : null;
}

/** 'about 5 min left', or 'time left unknown' before any progress (runPace's etaSeconds). */
function timeLeft(etaSeconds: number | null): string {
  return etaSeconds !== null ? `about ${formatDuration(etaSeconds)} left` : 'time left unknown';
}

/** The memory a spec's runs need (the largest), against the budget (a run over it was refused already). */
function memoryLine(runs: number, q: MemoryEstimate): string {
  const threads = q.threadsPerRun > 1 ? ` with ${q.threadsPerRun} threads` : '';
  return `memory: about ${formatBytes(q.memoryBytes)}${runs > 1 ? ' for the largest run' : ''}${threads} (budget ${formatBytes(q.memoryBudgetBytes)})`;
}

/**
 * A running (or paused) run's seconds worked since it started (its pauses not counted) and the time
 * left at its pace so far (null before any progress); null for a run not under way or that reports no
 * progress total.
 */
function runPace(r: RunSummary): { elapsedSeconds: number; etaSeconds: number | null } | null {
  if ((r.status !== 'running' && r.status !== 'paused') || !r.startedAt || r.progress.total <= 0) return null;
  const now = Date.now();
  return { elapsedSeconds: workingSeconds(r, now) ?? 0, etaSeconds: remainingSeconds(r, now) };
}

/** Seconds as '45 s', '12 min 5 s' or '3 h 20 min'. */
function formatDuration(seconds: number): string {
  const s = Math.round(seconds), m = Math.round(seconds / 60);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * ' s' after a metric (or a live counter of the same name) whose engine declares its unit, as it
 * applies to the run of `params` (an area in a 2D run); '' for counts, text and unknown engines.
 */
function unitOf(engine: string, metric: string, params: unknown): string {
  const unit = metricUnitIn(metricInfo(engine)[metric], params);
  return unit ? ` ${unit}` : '';
}

/** One line a metric of run `r`, with its unit (both of a unit that differs in 2D when `r` has no params). */
function formatMetrics(r: { metrics: Record<string, unknown>; engine: string; params?: unknown }): string {
  return Object.entries(r.metrics)
    .map(([k, v]) => `  ${k}: ${typeof v === 'number' && !Number.isInteger(v) ? v.toPrecision(6) : String(v)}${unitOf(r.engine, k, r.params)}`)
    .join('\n');
}

/**
 * What closing `s` waits for before it ends, for the line a Ctrl-C prints, so that the wait is not
 * taken for a hang: its runs asked to stop and keep, which the close gives up to STOP_GRACE_MS to end
 * with their results ('' when there are none).
 */
function stopWait(s: Services): string {
  const ids = s.queue.stoppingRuns();
  return ids.length ? `up to ${STOP_GRACE_MS / 1000} s for ${ids.join(' ')} to end as stopped, with results (Ctrl-C again: at once, and the next start ends it)` : '';
}

/**
 * The signals taken as Ctrl-C: SIGTERM (kill, `timeout`, a service manager's stop) and SIGHUP (the
 * terminal closed: its window, an ssh connection that dropped). Their default ended the process at
 * once: `run` left its batch queued for the app (or a later `queue run`) to run, an export its partial file.
 */
const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type Interrupt = (typeof INTERRUPTS)[number];

/**
 * Calls `fn` with the signal at the first Ctrl-C, or a signal taken as one (INTERRUPTS): a script's or
 * a terminal's stop is the user's, not a crash. A second signal ends the process as usual. Returns the undo.
 */
function onInterrupt(fn: (signal: Interrupt) => void): () => void {
  const handlers = INTERRUPTS.map((signal) => [signal, () => {
    off();
    fn(signal);
  }] as const);
  const off = () => {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
  for (const [signal, handler] of handlers) process.once(signal, handler);
  return off;
}

const INTERRUPT_MEANINGS: Record<Interrupt, string> = { SIGINT: 'Ctrl-C', SIGTERM: 'kill, timeout or a service manager', SIGHUP: 'its terminal closed' };

/**
 * Why the runs of `packbench <command>` went back to the queue, for their logs, when `signal` stopped it
 * ('interrupted: the app closed' said it of a `queue run` in a terminal).
 */
function stoppedBy(command: string, signal: Interrupt): string {
  return `\`packbench ${command}\` was stopped (${signal}: ${INTERRUPT_MEANINGS[signal]})`;
}

/**
 * A run's log after what `run` prints (an engine's note on how its run ended: a ball mill that
 * stopped before its duration, a stacking that ended full), as `runs show` ends with it. Not for a
 * failed run in `run`: its log ends with the error's stack, and the error is printed already.
 */
function logLines(r: RunRecord): string {
  return r.log.length ? `\nlog:\n${r.log.slice(-20).map((l) => '  ' + l).join('\n')}` : '';
}

/** How a run of `run`'s batch ended: deleted while it ran ('runs rm' beside it), it has no record left. */
export interface RunOutcome {
  id: string;
  name: string;
  status: RunSummary['status'] | 'deleted';
  error: string | null;
}

/** Up to this many runs, `run`'s summary of a batch has a line per run; a bigger one (a sweep of 10,000) is counted. */
export const RUN_LINES = 20;
/** The failed runs (and those deleted while they ran) named in the summary of a bigger batch. */
export const FAILED_LINES = 10;

const outcomeLine = (r: RunOutcome) => `${r.status.padEnd(9)} ${r.id}${r.name ? ` ${r.name}` : ''}${r.error ? ` (${r.error})` : ''}`;

/**
 * `run`'s summary of a batch: a line per run for a few runs; for more, the runs counted by status,
 * then the failed ones (and those deleted while they ran), each with its error, up to FAILED_LINES
 * and how to list the rest. A sweep of 10,000 runs printed 10,000 lines, where what the user looks
 * for, the failures, was lost; --json keeps every run.
 */
export function batchSummary(runs: readonly RunOutcome[], batchId: string | null): string {
  if (runs.length <= RUN_LINES) return runs.map(outcomeLine).join('\n');
  const counts = (['done', 'failed', 'cancelled', 'deleted', 'queued', 'paused', 'running'] as const).map((status) => [status, runs.filter((r) => r.status === status).length] as const);
  const lines = [`${runs.length} runs${batchId ? ` in batch ${batchId}` : ''}: ${counts.filter(([, n]) => n > 0).map(([status, n]) => `${n} ${status}`).join(', ')}`];
  const failed = runs.filter((r) => r.status === 'failed' || r.status === 'deleted');
  lines.push(...failed.slice(0, FAILED_LINES).map(outcomeLine));
  if (failed.length > FAILED_LINES) {
    lines.push(`... and ${failed.length - FAILED_LINES} more: \`packbench runs list${batchId ? ` --batch ${batchId}` : ''} --status failed --limit 10000\` lists the failed ones, --json the summary of every run`);
  }
  return lines.join('\n');
}

function resultOf(r: RunRecord) {
  return { runId: r.id, engine: r.engine, status: r.status, metrics: r.metrics, wallSeconds: r.wallSeconds, error: r.error, log: r.log };
}

/** Queued, running and paused runs in the order they started or will start. */
function queueOrder(s: Services): RunSummary[] {
  const rank = { running: 0, paused: 1, queued: 2 } as Record<string, number>;
  // All of them: a queue longer than one page (two 10,000-run sweeps) must still show the run that starts next.
  const n = s.store.countUnfinished();
  const limit = Math.max(1, n.running + n.paused + n.queued);
  const rows = s.store.listRuns({ offset: 0, limit, filter: { status: ['running', 'paused', 'queued'] }, sort: { field: 'createdAt', dir: 'asc' } }).rows;
  // Queued runs that only end as stopped start before the others, whatever their priority.
  const first = s.queue.startsFirst(), later = (r: RunSummary) => (first.has(r.id) ? 0 : 1);
  // createdAt ascending is the insertion order (seq); a stable sort keeps it within a priority.
  return rows.sort((a, b) => rank[a.status] - rank[b.status] || (a.status === 'queued' ? later(a) - later(b) || b.priority - a.priority : (a.startedAt ?? '').localeCompare(b.startedAt ?? '')));
}

/** Runs one command line; resolves with the exit code. */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  let exitCode = 0;
  const program = new Command('packbench')
    .description('PackBench: computational particle packing from the command line')
    .option('-V, --version', 'output the version number')
    .option('--data <dir>', `data directory (default: ${defaultDataDir()})`)
    .option('--json', 'print machine-readable JSON on stdout')
    .showHelpAfterError('(packbench --help, or COMMAND --help, for usage)')
    .exitOverride()
    // Argument errors read like every other error: 'packbench: option ... is invalid. ...'.
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr, outputError: (text, write) => write(`packbench: ${text.replace(/^error: /, '')}`) });

  // Not commander's .version(): its handler prints the bare version as soon as it reads --version,
  // before --json is known (which may come after it: hence the look at argv, as for errors below).
  // With --json it is a JSON object, as every other command's output.
  program.on('option:version', () => {
    io.stdout(argv.includes('--json') ? JSON.stringify({ version: appVersion() }) + '\n' : `${appVersion()}\n`);
    throw new CommanderError(0, 'commander.version', appVersion());
  });

  const globals = (): GlobalOptions => program.opts<GlobalOptions>();
  const dataDir = () => {
    const given = globals().data;
    // Resolved, an empty one (a script's unset variable: --data "$DATA") was the current folder: runs
    // were stored where neither the app nor the script looks.
    if (given?.trim() === '') throw new CliError(`--data is empty; give the data folder, or leave --data out for the app's (${defaultDataDir()})`, 2);
    const dir = resolve(given ?? defaultDataDir());
    // A file given as the folder: read-only commands would list nothing and 'runs show' say 'no run'.
    if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) throw new CliError(`--data ${dir} is a file; give the data folder (it is created when missing)`, 2);
    return dir;
  };
  const print = (human: string, json: unknown) => io.stdout(globals().json ? JSON.stringify(json) + '\n' : human + '\n');
  const info = (line: string) => io.stderr(line + '\n');

  /** The services of the data folder; says what opening it re-queued (runs a crash interrupted), for every command alike. */
  function open(o: Partial<ServicesOptions>): Services {
    const dir = dataDir();
    // A folder typed wrong listed no runs (exit 0), as an empty one would; a command that stores makes it.
    if (o.readOnly && globals().data !== undefined && !existsSync(dir)) throw new CliError(`--data ${dir}: no such folder (a command that stores runs makes it: run, queue add, import)`, 2);
    const s = openServices({ dataDir: dir, ...o });
    if (s.recovered.length) info(`re-queued ${s.recovered.length} run(s) interrupted by an earlier crash`);
    return s;
  }

  async function withServices<T>(o: Partial<ServicesOptions>, fn: (s: Services) => Promise<T>): Promise<T> {
    const s = open(o);
    try {
      return await fn(s);
    } catch (err) {
      // A folder that cannot be written (a full disk) is opened read-only, where a write fails as
      // 'read-only' (SQLITE_READONLY) whatever the reason: said with the reason.
      const refused = err instanceof ApiError ? err.code === 'unavailable' : storageFault(err) !== null;
      if (!o.readOnly && s.readOnlyBecause !== null && refused) {
        throw new CliError(`the data folder cannot be written (${s.readOnlyBecause}): nothing was stored; make it writable or free space, then try again`, 3);
      }
      throw err;
    } finally {
      await s.close();
    }
  }

  /** A bar of 30 characters filled to fraction f. */
  const bar = (f: number) => `[${'#'.repeat(Math.round(f * 30)).padEnd(30, '-')}]`;
  /**
   * A progress line, cut to one character less than the terminal's width: a line that wraps is not
   * overwritten by the next '\r', so every update of a run's bar, its phase and its name (past 80
   * characters) left a line behind on an 80-column terminal.
   */
  const progressLine = (line: string) => {
    const w = io.stderrColumns;
    const fitted = w !== undefined && w > 2 && line.length > w - 1 ? `${line.slice(0, w - 2)}…` : line;
    return `\r${fitted}\x1b[K`;
  };

  /**
   * One line per update on a TTY (a bar), nothing otherwise. A run that never started has no bar: its
   * end is in the summary (a Ctrl-C of a 9,300-run sweep drew 9,299 'cancelled' lines before it).
   */
  function progressBar(s: Services, ids: Set<string>): () => void {
    if (!io.stderrIsTTY) return () => {};
    const draw = (r: RunSummary) => {
      if (!ids.has(r.id) || r.startedAt === null) return;
      const f = r.progress.total > 0 ? Math.min(1, r.progress.done / r.progress.total) : 0;
      const left = remainingSeconds(r, Date.now());
      io.stderr(progressLine(`${bar(f)} ${progressPercent(r, 0).padStart(3)}% ${r.status === 'running' ? r.progress.phase : r.status}${left !== null ? `, about ${formatDuration(left)} left` : ''} ${r.name.slice(0, 40)}`));
      if (FINAL_STATUSES.includes(r.status)) io.stderr('\n');
    };
    return s.events.on('run.updated', draw);
  }

  /** A sphere import's bar on a TTY (its phase, parsing or analysing, and how far), as a run's; nothing otherwise. */
  function importBar(s: Services, name: string): () => void {
    if (!io.stderrIsTTY) return () => {};
    let drawn = false;
    const off = s.events.on('import.progress', (e) => {
      if (e.name !== name) return;
      drawn = true;
      io.stderr(progressLine(`${bar(e.fraction)} ${String(Math.floor(e.fraction * 100)).padStart(3)}% ${e.phase} ${name.slice(0, 40)}`));
    });
    return () => {
      off();
      if (drawn) io.stderr('\n');
    };
  }

  // ------------------------------------------------------------------ run

  addRunOptions(
    program
      .command('run')
      .description('run a spec to the end in this process (a spec with sweeps runs all its points; Ctrl-C cancels them). Exit 0: every run ended done; 1: one failed or was cancelled; 130: interrupted by Ctrl-C, SIGTERM or SIGHUP')
      .argument('<spec>', 'spec file: { "engine", "name", "seed", "params" }'),
    "runs at a time (a sweep's), an integer in [1, 256] (default: cores - 1)",
  ).action(async (file: string, o: RunOptions) => {
    const spec = readSpec(file);
    const mine = new Set<string>();
    await withServices({ ...runServiceOptions(o), only: mine }, async (s) => {
      // An engine without helper threads runs on one whatever it is given: typed, --threads would be
      // dropped without a word (and the run recorded as run on that many).
      const threaded = s.registry.threaded();
      if (o.threads > 1 && s.registry.ids().includes(spec.engine) && !threaded.includes(spec.engine)) {
        throw new CliError(`--threads ${o.threads}: the ${spec.engine} engine runs each run on one thread (more threads help ${threaded.join(', ')}); leave --threads out`, 2);
      }
      // Ctrl-C is taken before the runs are queued: queueing a large sweep announces its runs over
      // turns of the event loop (9,300 runs: 0.76 s), and a Ctrl-C then ended the process with the
      // whole sweep queued for the next `queue run` or the app. Runs queued after it are cancelled.
      let interrupted = false;
      const cancelMine = () => s.queue.cancelMany(mine);
      const offInterrupt = onInterrupt(() => {
        interrupted = true;
        info('\ncancelling...');
        cancelMine();
      });
      let queued: Awaited<ReturnType<typeof enqueueFile>>;
      try {
        queued = await enqueueFile(s, file, spec, 0);
      } catch (err) {
        offInterrupt();
        throw err;
      }
      const { runIds, batchId } = queued;
      runIds.forEach((id) => mine.add(id));
      if (interrupted) cancelMine();
      warningLines(queued.warnings).forEach(info);
      if (!globals().json) info(memoryLine(runIds.length, queued));
      // An engine may share work with helper threads only for some params (usesHelpers: the surface
      // engine's 'cells' search): said, rather than --threads dropped without a word.
      if (o.threads > 1 && queued.threadsPerRun === 1) {
        info(`--threads ${o.threads}: with these params the ${spec.engine} engine runs on one thread (its README says which params share work with helper threads)`);
      }
      const stopBar = progressBar(s, mine);
      s.queue.start();
      // Runs another process on the same folder (the app, the web host) took are waited for too.
      await s.queue.waitFor(runIds);
      offInterrupt();
      stopBar();
      // A run deleted while it ran ('runs rm' or History in another process, which stops it there) has no record left.
      const deleted = (id: string) => ({ runId: id, status: 'deleted' as const, error: 'deleted while it ran (runs rm, or History in another window)' });
      const runs = runIds.map((id) => s.store.getRun(id) ?? deleted(id));
      if (runIds.length === 1) {
        const r = runs[0];
        if ('runId' in r) print(`deleted: run ${r.runId} was ${r.error}`, r);
        else print(
          `${r.status}: ${r.name} (${r.id}) in ${r.wallSeconds?.toFixed(2) ?? '?'} s${r.error ? `\n  error: ${r.error}` : ''}\n${formatMetrics(r)}${r.status === 'failed' ? '' : logLines(r)}`,
          resultOf(r),
        );
      } else {
        print(
          batchSummary(runs.map((r) => ('runId' in r ? { id: r.runId, name: '', status: r.status, error: r.error } : r)), batchId),
          { batchId, runs: runs.map((r) => ('runId' in r ? r : resultOf(r))) },
        );
      }
      // 130 as for `queue run` and the exports: the user interrupted it (a run that ended done anyway is counted done).
      if (runs.some((r) => r.status !== 'done')) exitCode = interrupted ? 130 : 1;
    });
  });

  // ------------------------------------------------------------------ validate

  program
    .command('validate')
    .description('check a spec as `run` and `queue add` do (every point of its sweeps) without queueing it: its runs, the memory the largest needs, and its warnings (fields that have no effect, values that work against the run)')
    .argument('<spec>', 'spec file')
    .action(async (file: string) => {
      const spec = readSpec(file);
      await withServices({}, async (s) => {
        // The estimate is for the threads per run the app and the web host would run it with.
        s.queue.restoreSettings();
        const { rows, ...checked } = await checkFile(s, file, spec, 0);
        warningLines(checked.warnings).forEach(info);
        if (!globals().json) info(memoryLine(rows.length, checked));
        print(`valid: ${rows.length} run(s)${checked.warnings.length ? `, ${checked.warnings.length} warning(s) (above)` : ''}`, { runs: rows.length, ...checked });
      });
    });

  // ------------------------------------------------------------------ queue

  const queue = program.command('queue').description('the persistent queue shared with the app');

  queue
    .command('add')
    .description('queue a spec (sweeps expand into a batch); `queue run` or the app runs it')
    .argument('<spec>', 'spec file')
    .option('--priority <p>', 'higher runs first, an integer in [-1000, 1000]', intArg('--priority', -1000, 1000), 0)
    .action(async (file: string, o: { priority: number }) => {
      const spec = readSpec(file);
      await withServices({}, async (s) => {
        // The app or the web host runs what is queued here, with the folder's threads per run: the estimate is for those.
        s.queue.restoreSettings();
        const r = await enqueueFile(s, file, spec, o.priority);
        warningLines(r.warnings).forEach(info);
        if (!globals().json) info(memoryLine(r.runIds.length, r));
        print(`queued ${r.runIds.length} run(s)${r.batchId ? ` in batch ${r.batchId}` : ''}: ${r.runIds.join(' ')}`, r);
      });
    });

  addRunOptions(
    queue.command('run').description('work through the queue until it is empty (Ctrl-C stops; running runs go back to the queue). Exit 0: every run ended done; 1: one failed or was cancelled; 130: interrupted with runs left in the queue'),
    'runs at a time, an integer in [1, 256] (default: cores - 1)',
  ).action(async (o: RunOptions) => {
    await withServices(runServiceOptions(o), async (s) => {
      // Opened read-only (unwritable or full): no run can be claimed, and the queue would try its
      // first run at every poll forever, never idle.
      if (s.readOnlyBecause) throw new CliError(`the data folder cannot be written (${s.readOnlyBecause}): no queued run can start; make it writable or free space, then run again`, 3);
      const seen = new Map<string, RunSummary>();
      /** Runs the close put back in the queue (Ctrl-C): they resume at the next start. */
      const putBack = new Set<string>();
      let interrupted = false;
      const off = s.events.on('run.updated', (r) => {
        if (FINAL_STATUSES.includes(r.status) && !seen.has(r.id)) {
          seen.set(r.id, r);
          if (!globals().json) info(`${r.status.padEnd(9)} ${r.id} ${r.name}${r.error ? ` (${r.error})` : ''}`);
        } else if (interrupted && (r.status === 'queued' || r.status === 'paused')) {
          putBack.add(r.id);
        }
      });
      let offInterrupt = () => {};
      let because = '';
      const stop = new Promise<void>((done) => {
        offInterrupt = onInterrupt((signal) => {
          interrupted = true;
          because = stoppedBy('queue run', signal);
          const wait = stopWait(s);
          info(`\nstopping: running runs go back to the queue${wait && `; first, ${wait}`}`);
          done();
        });
      });
      s.queue.start();
      await Promise.race([s.queue.idle(), stop]);
      offInterrupt();
      // Runs it had not started yet, left in the queue by the interruption.
      const leftQueued = interrupted ? s.store.countUnfinished().queued : 0;
      // The close waits for runs being stopped and kept: they end as it does, and are counted.
      if (interrupted) await s.close(because);
      off();
      // Runs that ended while the disk was full, their outcome still not stored at the close: 'running'
      // in the folder, they go back to the queue at the next start and run again.
      const lost = interrupted ? s.queue.unstoredRuns() : [];
      for (const id of lost) info(`the outcome of run ${id} could not be stored (the data folder refused it: see above): it goes back to the queue at the next start and runs again`);
      const runs = [...seen.values()];
      print(`${runs.length} run(s) finished: ${runs.filter((r) => r.status === 'done').length} done`, { runs: runs.map((r) => ({ runId: r.id, status: r.status, error: r.error })) });
      // 130: interrupted with work left (the queue is not worked through: `queue run` again goes on);
      // else 1 for a run that failed or was cancelled, 0 when every run ended done (after a Ctrl-C
      // too, when the runs still working were being stopped and ended done, with their results).
      if (leftQueued > 0 || putBack.size > 0 || lost.length > 0) exitCode = 130;
      else if (runs.some((r) => r.status !== 'done')) exitCode = 1;
    });
  });

  // The pause kept in the data folder, which the app and the web host follow (open, or started later).
  const whoFollows = 'the app and web hosts on this data folder (open now, or started later)';
  queue
    .command('pause')
    .description(`pause the queue: ${whoFollows} start no more of its runs; running runs go on. \`run\` and \`queue run\` ignore it`)
    .action(async () => {
      await withServices({}, async (s) => {
        const { queued } = await s.dispatch('queue.pause', {});
        print(`queue paused: the app and web hosts on this folder start none of its ${queued} queued run(s); running runs go on (\`packbench queue resume\` resumes)`, { paused: true, queued });
      });
    });

  queue
    .command('resume')
    .description(`resume the paused queue: ${whoFollows} start its runs again`)
    .action(async () => {
      await withServices({}, async (s) => {
        const { queued } = await s.dispatch('queue.resume', {});
        print(`queue resumed: the app and web hosts on this folder start its ${queued} queued run(s)`, { paused: false, queued });
      });
    });

  queue
    .command('list')
    .description('running runs (in the order they started), then paused ones, then queued ones in the order they will start; first a line saying so when the queue is paused')
    // --json printed the bare list before the pause was said: scripts that read it keep it.
    .option('--with-state', 'with --json: {"paused", "waiting", "runs"}, whether the queue is paused (queue pause) and why its runs wait (a full disk; else null) beside its runs, instead of the bare list')
    .action(async (o: { withState?: boolean }) => {
      await withServices({ readOnly: true }, async (s) => {
        const rows = queueOrder(s);
        const paused = s.queue.pausedInFolder();
        const list = rows.length ? rows.map((r) => `${r.status.padEnd(8)} p${String(r.priority).padEnd(4)} ${r.id} ${r.engine.padEnd(8)} ${r.name}${paceText(r)}`).join('\n') : '(queue is empty)';
        // Why queued runs wait: the pause the app and web hosts follow.
        const waiting = rows.length ? fullDisk(dataDir()) : null;
        const text = [list, ...elsewhereLines(s, rows.map((r) => r.id)), ...(waiting ? [waiting] : [])].join('\n');
        print(paused ? `queue paused: the app and web hosts on this folder start none of its queued runs (\`packbench queue resume\` resumes)\n${text}` : text, o.withState ? { paused, waiting, runs: rows } : rows);
      });
    });

  // ------------------------------------------------------------------ runs

  const runs = program.command('runs').description('recorded runs');

  runs
    .command('list')
    .description('runs, newest first')
    .addOption(new Option('--status <list>', `comma-separated: ${RUN_STATUSES.join(',')}`).argParser((v) => {
      const list = v.split(',').map((x) => x.trim());
      const bad = list.filter((x) => !(RUN_STATUSES as readonly string[]).includes(x));
      if (bad.length) throw new InvalidArgumentError(`unknown status ${bad.map((b) => `'${b}'`).join(', ')}; allowed: ${RUN_STATUSES.join(', ')}`);
      return list as RunSummary['status'][];
    }))
    .option('--engine <id>', `only this engine: ${ENGINES.map((e) => e.id).join(', ')}, or ${SPHERE_IMPORT_ENGINE} (imported sphere sets)`)
    .option('--text <text>', 'name or id contains')
    .option('--batch <id>', "only this batch's runs (a sweep's: `run` and `queue add` say its id)")
    .option('--limit <n>', 'at most this many, an integer in [1, 10000]', intArg('--limit', 1, 10_000), 50)
    .action(async (o: { status?: RunSummary['status'][]; engine?: string; text?: string; batch?: string; limit: number }) => {
      await withServices({ readOnly: true }, async (s) => {
        // runs.list refuses a misspelt engine (it would list nothing, as if there were no such runs).
        const list = await s.dispatch('runs.list', { offset: 0, limit: o.limit, filter: { status: o.status, engine: o.engine, text: o.text, batchId: o.batch } }).catch((err: unknown) => {
          const issue = err instanceof ApiError ? err.issues?.find((i) => i.path === 'filter.engine') : undefined;
          throw issue ? new CliError(`--engine: ${issue.message}`, 2) : err;
        });
        const lines = list.rows.map(
          (r) => `${r.id} ${r.status.padEnd(9)} ${r.engine.padEnd(8)} ${r.createdAt.slice(0, 19).replace('T', ' ')} ${(r.wallSeconds?.toFixed(1) ?? '').padStart(7)} s  ${r.name}`,
        );
        print([...lines, `(${list.rows.length} of ${list.total})`, ...elsewhereLines(s, list.rows.map((r) => r.id))].join('\n'), list);
      });
    });

  runs
    .command('show')
    .description('one run: spec, status, metrics, artifacts, log')
    .argument('<id>')
    .action(async (id: string) => {
      await withServices({ readOnly: true }, async (s) => {
        const r = await s.dispatch('runs.get', { id });
        const artifacts = await s.dispatch('runs.artifacts', { id });
        // A run still working: how far it is, in which phase, and the time left at its pace so far.
        const pace = runPace(r);
        const progressLine = pace
          ? [`  progress ${progressPercent(r, 1)} %, phase ${r.progress.phase || '-'}, ${formatDuration(pace.elapsedSeconds)} elapsed, ${timeLeft(pace.etaSeconds)}`,
            ...(Object.keys(r.counters).length ? [`  ${Object.entries(r.counters).map(([k, v]) => `${k} ${Number.isInteger(v) ? v : v.toPrecision(4)}${unitOf(r.engine, k, r.params)}`).join(', ')}`] : [])]
          : [];
        const runner = s.queue.runners().get(id);
        const human = [
          `${r.name} (${r.id})`,
          `  engine ${r.engine}, seed ${r.seed}, status ${r.status}${r.error ? `: ${r.error}` : ''}`,
          ...(runner ? [`  ${runnerText(id, runner)}`] : []),
          ...progressLine,
          `  created ${r.createdAt}, started ${r.startedAt ?? '-'}, finished ${r.finishedAt ?? '-'}, ${r.wallSeconds?.toFixed(2) ?? '-'} s, attempts ${r.attempts}`,
          // Where and how it ran: nothing yet for a run that has not started.
          ...(r.startedAt ? [`  PackBench ${r.appVersion}, ${r.threads} thread(s)${r.host ? `, ${r.host.hostname} (${r.host.cpuModel}, ${r.host.cpus} cores)` : ''}`] : []),
          'metrics:',
          formatMetrics(r),
          'artifacts:',
          ...artifacts.map((a) => `  ${a.kind} ${a.name}: ${a.path} (${a.bytes} bytes, sha256 ${a.checksum.slice(0, 16)}...)`),
          'params:',
          JSON.stringify(r.params, null, 2).replace(/^/gm, '  '),
        ].join('\n') + logLines(r);
        print(human, { ...r, artifacts, ...pace, ...(runner && { runner }) });
      });
    });

  runs
    .command('export')
    .description(`export a run: ${EXPORT_FORMATS.map((f) => f.id).join(', ')}`)
    .argument('<id>')
    .requiredOption('--format <f>', `one of ${EXPORT_FORMATS.map((f) => f.id).join(', ')}`)
    .requiredOption('--out <file>', 'output file (written whole or not at all: an existing file is replaced only by a finished export)')
    .addHelpText('after', exportFormatsHelp)
    .action(async (id: string, o: { format: string; out: string }) => {
      const spec = EXPORT_FORMATS.find((f) => f.id === o.format);
      if (!spec) throw new CliError(`unknown format '${o.format}'; allowed: ${EXPORT_FORMATS.map((f) => f.id).join(', ')}`, 2);
      const out = resolve(o.out);
      checkOutFile(out);
      await withServices({ readOnly: true }, async (s) => {
        const r = s.store.getRun(id);
        if (!r) throw new ApiError('not_found', `no run with id '${id}'`);
        const unfinished = notExportable(r, spec);
        if (unfinished) throw new CliError(unfinished, 2);
        const tty = io.stderrIsTTY;
        // Ctrl-C ends the export at its next step, through exportRun's own clean-up: killed by the
        // signal, the process left its partial file (up to the export's whole size) beside --out.
        let interrupted = false;
        const offInterrupt = onInterrupt(() => void (interrupted = true));
        let result;
        try {
          result = await exportRun(await exportableRun(r, s, o.format), o.format, out, (f) => {
            if (interrupted) throw new CliError(`interrupted: nothing was written to ${out}`, 130);
            if (tty) io.stderr(progressLine(`exporting ${(f * 100).toFixed(0)}%`));
          });
        } catch (err) {
          if (tty) io.stderr('\n');
          if (err instanceof CliError) throw err;
          const { code, path } = err as { code?: unknown; path?: unknown };
          // A full disk is no fault of the input (3); a format that does not apply to this run, or
          // a folder that cannot be written, is the user's to fix (2); an artifact file of the run
          // damaged or gone is a failed operation (3). Nothing was written either way.
          if (code === 'ENOSPC' || code === 'EDQUOT') throw new CliError(`cannot write ${out}: the disk is full (${code}); nothing was written`, 3);
          if (typeof code === 'string' && typeof path === 'string' && path.startsWith(out)) throw new CliError(`cannot write ${out}: ${(err as Error).message}`, 2);
          throw new CliError(`cannot export run ${id} as ${o.format}: ${(err as Error).message}`, err instanceof FormatNotApplicable ? 2 : 3);
        } finally {
          offInterrupt();
        }
        if (tty) io.stderr('\n');
        print(`wrote ${result.path} (${statSync(result.path).size} bytes)`, result);
      });
    });

  // The calls on one run by its id that answer with the run: a line saying what was done (--json: the run).
  const runCalls: { verb: 'stop' | 'cancel' | 'pause' | 'resume'; description: string; done: (id: string, r: RunSummary) => string }[] = [
    {
      verb: 'stop',
      description: "stop and keep: a running run ends at its engine's next safe point and is done with its results (the particles placed so far, a ball mill's state and trajectories up to the time reached)",
      done: (id) => `stopping ${id}: it ends at its next safe point and keeps its results (packbench runs show ${id})`,
    },
    {
      verb: 'cancel',
      description: 'cancel a queued, running or paused run: it ends at once and keeps no artifacts (its metrics, series and log stay)',
      done: (id) => `cancelled ${id}`,
    },
    {
      verb: 'pause',
      description: 'pause a queued run (it waits until resumed), or a running one in this process; a run under way in another process (the app, `queue run`) pauses only there',
      done: (id) => `paused ${id} (packbench runs resume ${id})`,
    },
    {
      verb: 'resume',
      description: 'resume a paused run: one that had not started is queued again; one paused under way in another process resumes only there',
      done: (id, r) => `resumed ${id}: ${r.status}`,
    },
  ];
  for (const { verb, description, done } of runCalls) {
    runs
      .command(verb)
      .description(description)
      .argument('<id>')
      .action(async (id: string) => {
        await withServices({}, async (s) => {
          const r = await s.dispatch(`runs.${verb}`, { id });
          print(done(id, r), r);
        });
      });
  }

  runs
    .command('rerun')
    .description('queue a new run of the same spec and seed, or with some of it changed (--seed, --set); `queue run` or the app runs it')
    .argument('<id>')
    .option('--seed <n>', `seed of the new run, an integer in [0, ${MAX_SEED}] (default: the run's)`, intArg('--seed', 0, MAX_SEED))
    .option('--set <params.path=value>', 'change a field of the spec (repeat for more): params.balls.count=2000', setArg)
    .addHelpText(
      'after',
      `
--set params.PATH=VALUE changes one field of the run's params, by its dotted path (an element of a
list by its index: params.box.size.2=8). VALUE is JSON (2000, 0.5, true, [4,4,4], {"$sweep":[1,2,4]}),
a number (.5), or else the text as typed (params.cdo=spatialTree). An object VALUE is laid over the
field's object field by field; null removes a field, e.g. the old model's when switching:
--set params.restitution.model=hertz --set params.restitution.value=null.

The changes are laid over the spec the run was queued with, as written, not over the params it
resolved: a field that spec left out takes its default, as the app's re-run does. The new spec is
checked as \`queue add\` checks one: a value out of range or a field that does not exist exits 2,
naming it, and queues nothing; its warnings (fields that have no effect, values that work against
the run) are said on stderr. The new run's name
ends as a sweep point's does, with the values that set it apart as it takes them: the run's swept
fields and those --set changes (NAME [porosity=0.5, duration=1]).

A re-run of a batch's run with no --set and its own seed joins that batch when the batch has no run
of its point (seed and swept values) done or still to run: a failed or cancelled replicate fills its
place in the batch's counts, sweep plot and replicates summary. Any other re-run is a new experiment
outside the batch, and the output says why.

  packbench runs rerun ID --seed 7 --set params.balls.count=2000 --set params.duration=1
`,
    )
    .action(async (id: string, o: { seed?: number; set?: SetOption[] }) => {
      // An issue of a value given with --set is named as typed, one of the run's own values as its params
      // field, saying what --set can do about it; one of the params as a whole (the memory budget) with
      // the --set values.
      const where = (path: string) => (path === 'overrides' ? 'params (with --set)' : path.startsWith('overrides.') ? `--set params.${path.slice('overrides.'.length)}` : path);
      const advised = (i: ApiIssue): ApiIssue =>
        i.path === 'params' || i.path.startsWith('params.') ? { ...i, message: `${i.message} (the value of run ${id}, not overridden: override it, or remove it with null)` } : i;
      await withServices({}, async (s) => {
        // The app or the web host runs it, with the folder's threads per run: the budget is checked for those (as queue add).
        s.queue.restoreSettings();
        const r = await s.dispatch('runs.rerun', { id, overrides: overridesOf(o.set ?? []), seed: o.seed }).catch((err: unknown) => {
          const own = err instanceof ApiError && err.issues ? new ApiError(err.code, err.message, err.issues.map(advised), err.warnings?.map(advised)) : err;
          throw invalidSpec(own, `cannot re-run ${id}: invalid spec`, where);
        });
        warningLines(r.warnings.map(advised), where).forEach(info);
        if (!globals().json) info(memoryLine(r.runIds.length, r));
        print(`queued ${r.runIds.join(' ')}: a re-run of ${id}${r.batchId ? ` (batch ${r.batchId})` : r.outside ? ` (not in its batch: ${r.outside})` : ''}`, r);
      });
    });

  runs
    .command('rm')
    .description('delete a run with its artifacts')
    .argument('<id>')
    .action(async (id: string) => {
      // On a full disk the run's files go first, to make room for removing its record (handlers.ts deleteRun).
      const r = await withServices({}, (s) => s.dispatch('runs.delete', { id }));
      if (r.filesFirst) info(`the disk of the data folder is full: the files of run ${id} were deleted first, to make room for removing its record`);
      if (r.recordLeft !== null) {
        throw new CliError(`the files of run ${id} were deleted, but its record cannot be removed yet (${r.recordLeft}): it goes when PackBench next opens the folder with space free; free space, then run \`packbench runs rm ${id}\` to remove it now`, 3);
      }
      print(`deleted ${id}`, { deleted: id });
    });

  // ------------------------------------------------------------------ import

  const importCmd = program.command('import').description('bring spheres and shapes from other tools into PackBench');

  function readInput(file: string): Buffer {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new CliError(`cannot read ${file}: ${(err as Error).message}`, 2);
    }
  }

  importCmd
    .command('spheres')
    .description('a sphere CSV (x, y, z, r[, type]) as a finished run, analysed (porosity, coordination, RDF, pores, sizes); export it like any run')
    .argument('<file.csv>')
    .option('--name <name>', 'run name (default: the file name)')
    .option('--box <x,y,z>', "box lengths X,Y,Z, each > 0, in the CSV's length unit (default: the spheres' extent from the origin)", boxArg)
    .option('--periodic <sides>', "the box's periodic sides for the analysis: 'x,y' (a bed periodic sideways, as the voxel packings), 'none' or 'x,y,z'", periodicArg, 'x,y')
    .action(async (file: string, o: { name?: string; box?: [number, number, number]; periodic: SpherePeriodicSides }) => {
      const csv = readInput(file).toString('utf8');
      await withServices({}, async (s) => {
        const analysis = { periodic: [...SPHERE_PERIODIC_SIDES[o.periodic]] };
        const name = o.name ?? basename(file);
        const stopBar = importBar(s, name);
        let r: RunSummary;
        try {
          r = await s.dispatch('runs.importSpheres', { name, csv, source: resolve(file), box: o.box, analysis });
        } finally {
          stopBar();
        }
        print(`${r.status}: ${r.name} (${r.id}), engine ${r.engine}\n${formatMetrics(r)}`, { runId: r.id, engine: r.engine, status: r.status, metrics: r.metrics });
      });
    });

  importCmd
    .command('shape')
    .description('a closed STL/OBJ mesh (voxelised) or a raw voxel volume with its JSON header as a shape of the library')
    .argument('<file>', '.stl, .obj or .raw')
    .option('--resolution <r>', 'meshes: voxels per model length unit, a number > 0', positiveArg('--resolution'))
    .option('--voxels-across <n>', 'meshes: voxels along the longest side, an integer in [1, 1024] (instead of --resolution)', intArg('--voxels-across', 1, 1024))
    .option('--header <file.json>', 'raw: its JSON header (default: FILE.raw.json, as `runs export --format raw` writes it)')
    .option('--name <name>', 'shape name (default: the file name without extension)')
    .action(async (file: string, o: { resolution?: number; voxelsAcross?: number; header?: string; name?: string }) => {
      const ext = extname(file).toLowerCase();
      if (!['.stl', '.obj', '.raw'].includes(ext)) throw new CliError(`${file}: import shape reads .stl, .obj or .raw files, got '${ext || '(no extension)'}'`, 2);
      const raw = ext === '.raw';
      if (raw && (o.resolution !== undefined || o.voxelsAcross !== undefined)) {
        throw new CliError('--resolution and --voxels-across apply to meshes; a raw volume takes its voxel size from its header', 2);
      }
      if (!raw && (o.resolution === undefined) === (o.voxelsAcross === undefined)) throw new CliError('give exactly one of --resolution and --voxels-across for a mesh: --resolution R (voxels per model length unit, e.g. 20) or --voxels-across N (voxels along its longest side, e.g. 40)', 2);
      if (!raw && o.header !== undefined) throw new CliError('--header applies to .raw volumes only', 2);
      const bytes = readInput(file);
      const header = raw ? readInput(o.header ?? `${file}.json`).toString('utf8') : '';
      const fileName = basename(file);
      await withServices({}, async (s) => {
        const r = raw
          ? await s.dispatch('shapes.importRaw', { fileName, bytes, header, name: o.name })
          : await s.dispatch('shapes.importMesh', { fileName, bytes, name: o.name, resolution: o.resolution, voxelsAcross: o.voxelsAcross });
        const dims = (r.shape.params.dims as number[]).join('x');
        print(
          `imported shape '${r.shape.name}' (${r.shape.id}): ${dims} voxels, ${r.voxelCount} solid, ${r.resolution.toPrecision(6)} voxels per unit, volume ${r.volume.toPrecision(6)}${r.triangles !== undefined ? `, ${r.triangles} triangles` : ''}`,
          r,
        );
      });
    });

  // ------------------------------------------------------------------ engines, serve

  program
    .command('engines')
    .description('the engines and their parameters (JSON Schema with --json)')
    .action(async () => {
      await withServices({ readOnly: true }, async (s) => {
        const list = await s.dispatch('engines.list', {});
        print(list.map((e) => `${e.id.padEnd(10)} ${e.title}: ${e.description}`).join('\n') || '(no engines)', list);
      });
    });

  program
    .command('serve')
    .description('the app in a browser: web host on 127.0.0.1 with a random token (build it first: npm run build:web)')
    .option('--port <n>', 'port, an integer in [0, 65535] (0: any free one)', intArg('--port', 0, 65535), 0)
    .option('--web-root <dir>', 'folder of the built renderer (default: out/web)')
    .action(async (o: { port: number; webRoot?: string }) => {
      const { startHost, DEFAULT_WEB_ROOT } = await import('./host/server');
      // Before the data folder is opened; a missing build is said in one line, not as a fault of ours.
      const webRoot = resolve(o.webRoot ?? DEFAULT_WEB_ROOT);
      if (!existsSync(join(webRoot, 'index.html'))) {
        throw o.webRoot === undefined
          ? new CliError(`no built renderer at ${webRoot}: run \`npm run build:web\` first (npm run serve does both)`, 3)
          : new CliError(`--web-root ${webRoot}: no built renderer there (no index.html); give the folder npm run build:web writes (out/web)`, 2);
      }
      const s = open({});
      const host = await startHost({ services: s, port: o.port, webRoot }).catch(async (err) => {
        await s.close();
        throw portRefused(err, o.port) ?? err;
      });
      // Once it listens: a host that cannot (a port in use) started queued runs, then put them back as interrupted.
      s.startQueue();
      // Listening before the URL is printed: a Ctrl-C (or a script's SIGINT) as soon as it shows
      // found no listener in between, and ended the process without closing (~1 in 4 when sent at once).
      const stopped = new Promise<Interrupt>((done) => onInterrupt(done));
      if (globals().json) io.stdout(JSON.stringify({ url: host.url, port: host.port, dataDir: dataDir(), readOnlyBecause: s.readOnlyBecause }) + '\n');
      else io.stdout(`PackBench web host: ${host.url}\n  data: ${dataDir()}\n  Ctrl-C stops (running runs go back to the queue)\n`);
      if (s.readOnlyBecause) info(`the data folder cannot be written (${s.readOnlyBecause}): runs can be browsed, not added`);
      const signal = await stopped;
      const wait = stopWait(s);
      if (wait) info(`stopping: first, ${wait}`);
      await host.close();
      await s.close(stoppedBy('serve', signal));
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitCode;
  } catch (err) {
    let message = '';
    const code = report(err, (line) => {
      message = line.replace(/^packbench: /, '');
      info(line);
    });
    // With --json, stdout holds one JSON document on failure too (an option that failed to parse
    // may come before --json, which commander then has not read: hence the look at argv).
    if (code !== 0 && (globals().json === true || argv.includes('--json'))) {
      // Commander's own text for a command group given no command (help on stderr) is '(outputHelp)'.
      if (err instanceof CommanderError) message = err.code === 'commander.help' ? 'a command is needed: packbench --help (or COMMAND --help) lists them' : err.message.replace(/^error: /, '');
      io.stdout(JSON.stringify({ error: { message, exitCode: code } }) + '\n');
    }
    return code;
  }
}

/** A --port already in use is the user's to change (2, bad input), said naming it; null for other errors. */
function portRefused(err: unknown, port: number): CliError | null {
  if ((err as { code?: unknown } | null)?.code !== 'EADDRINUSE') return null;
  return new CliError(`--port ${port}: the port is in use (another program listens on 127.0.0.1:${port}); give another port, or --port 0 for any free one`, 2);
}

/**
 * --out must name a file in a folder that exists; checked before anything is opened, so the error
 * names the problem instead of a half-made export.
 */
function checkOutFile(out: string): void {
  let dirOk = false;
  try {
    dirOk = statSync(dirname(out)).isDirectory();
  } catch {
    dirOk = false;
  }
  if (!dirOk) throw new CliError(`--out ${out}: the folder ${dirname(out)} does not exist`, 2);
  let isDir = false;
  try {
    isDir = statSync(out).isDirectory();
  } catch {
    isDir = false; // no such file yet: fine
  }
  if (isDir) throw new CliError(`--out ${out} is a folder; give a file name, e.g. ${resolve(out, 'export')}`, 2);
}

/** Reports an error as one line (a stack only for faults of ours) and gives its exit code. */
function report(err: unknown, info: (line: string) => void): number {
  if (err instanceof CommanderError) {
    // Help and version exit 0; every argument error (unknown option, bad value, missing argument) 2.
    return err.exitCode === 0 || err.code === 'commander.helpDisplayed' || err.code === 'commander.version' ? 0 : 2;
  }
  if (err instanceof CliError) {
    info(`packbench: ${err.message}`);
    return err.exitCode;
  }
  if (err instanceof ApiError) {
    info(`packbench: ${err.message}`);
    return err.code === 'invalid' || err.code === 'not_found' ? 2 : 3;
  }
  const fault = storageFault(err);
  if (fault) {
    info(`packbench: ${fault.message}`);
    return 3;
  }
  if (typeof (err as { code?: unknown })?.code === 'string') {
    info(`packbench: ${(err as Error).message}`); // a system error: the message names it
    return 3;
  }
  info(`packbench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  return 3;
}
