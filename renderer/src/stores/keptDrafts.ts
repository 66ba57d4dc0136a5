/**
 * What the user typed into the batch manager's form and the particle editor's mixture, kept across a
 * reload of the web host's tab or a restart of the app (both lost it without a word): in the renderer's
 * localStorage, which the browser and Electron's renderer both have.
 *
 * Kept per data folder (app.info's dataDir in the key): a mixture names shapes of its folder's
 * library, and one address may serve another folder later (the app with --data, a host on a fixed
 * --port). The browser keeps localStorage per origin, and the web host's origin includes its port:
 * a host started again on another port (`serve` picks a free one unless given --port) starts without
 * the drafts of the last one; they are back when it is served on that port again.
 *
 * Per tab: two tabs of one host (or two windows of the app) each keep their own draft, in their
 * sessionStorage, which a reload keeps; typing in one overwrote the other's (one localStorage key),
 * and a reload of the other showed what the first had typed. localStorage holds the draft for a page
 * that has none of its own (a new tab, the app started again): the last one kept, and when a page
 * goes, its own, so that the tab closed last is the one a restart brings back.
 *
 * A draft holds numbers as typed, NaN for an empty or unreadable box (readNumber): JSON has no NaN
 * (it writes null, which a nullable field reads as unset), so non-finite numbers are written as
 * { "$number": "NaN" } and read back. A draft that no longer reads (a later version changed what it
 * holds) is dropped with a notice, never applied in part.
 */
import { z } from 'zod';
import { api } from '../api';
import { toast } from './toasts';
import { formatDate } from '../components/format';

export interface KeptDraft<T> {
  value: T;
  /** When it was kept (ISO). */
  savedAt: string;
}

export interface DraftKeeper<T> {
  /** The draft an earlier page kept, or null; one that no longer reads is dropped, saying so. */
  take(): KeptDraft<T> | null;
  /** Keeps `value` after a pause in typing (at once when the page goes); null forgets the draft. */
  keep(value: T | null): void;
  /** Writes what keep() was given and not written yet (the page or the editor goes). */
  flush(): void;
}

/** A number as a box holds it while typed: NaN when empty or unreadable (readNumber), which the form names at its field. */
export const typedNumber = z.custom<number>((v) => typeof v === 'number', 'expected a number');

/** A pause in typing before the draft is written: a voxel map in the params is megabytes of text. */
const KEEP_DELAY_MS = 300;
const KEY_PREFIX = 'packbench.draft';

const NON_FINITE = ['NaN', 'Infinity', '-Infinity'];

function encode(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? { $number: String(v) } : v));
}

function decode(text: string): unknown {
  return JSON.parse(text, (_k, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      const keys = Object.keys(v);
      const n = (v as { $number?: unknown }).$number;
      if (keys.length === 1 && typeof n === 'string' && NON_FINITE.includes(n)) return Number(n);
    }
    return v;
  });
}

/** Where the draft `name` of data folder `dataDir` is kept. */
export function draftKey(name: string, dataDir: string): string {
  return `${KEY_PREFIX}.${name}:${dataDir}`;
}

/**
 * The keeper of draft `name` (`what` names it in notices: 'batch form', 'mixture'), checked with
 * `schema` when read; null when the data folder cannot be asked (nothing is kept then). It reads the
 * tab's own draft, else the last one kept by any page (which becomes the tab's); it writes both, and
 * forgets the last one kept only while it is this page's.
 */
export async function draftKeeper<T>(name: string, what: string, schema: z.ZodType<T>): Promise<DraftKeeper<T> | null> {
  let dataDir: string;
  try {
    dataDir = (await api.call('app.info', {})).dataDir;
  } catch {
    return null;
  }
  const key = draftKey(name, dataDir);
  let pending: { value: T | null } | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let failed = false;

  function write(): void {
    if (timer) clearTimeout(timer);
    timer = null;
    if (!pending) return;
    const { value } = pending;
    pending = null;
    try {
      put(value === null ? null : encode({ savedAt: new Date().toISOString(), value }));
      failed = false;
    } catch (e) {
      // Said once until a write succeeds again: a quota met at each keystroke would stack toasts.
      if (!failed) toast('error', `The ${what} cannot be kept as a draft (${e instanceof Error ? e.message : String(e)}): a reload would lose it`);
      failed = true;
    }
  }
  /** What this page last wrote or took: the last one kept is this page's while it still holds this. */
  let own: string | null = null;
  /**
   * Writes `text` as the tab's draft and the last one kept. null forgets the tab's, and the last one
   * kept only while that is this page's: a draft another tab (or window) kept since is that tab's
   * work, which a Discard here, or typing the form back to its defaults, threw away.
   */
  function put(text: string | null): void {
    if (text === null) {
      sessionStorage.removeItem(key);
      if (own !== null && localStorage.getItem(key) === own) localStorage.removeItem(key);
      own = null;
      return;
    }
    sessionStorage.setItem(key, text);
    localStorage.setItem(key, text);
    own = text;
  }
  function copyToTab(text: string): void {
    try {
      sessionStorage.setItem(key, text);
    } catch {
      // Not the tab's own then: a reload takes the last one kept, as before.
    }
  }
  window.addEventListener('pagehide', () => {
    write();
    // The tab's own draft becomes the one a new page or a restart takes, though another tab kept one since.
    try {
      const tabs = sessionStorage.getItem(key);
      if (tabs !== null) localStorage.setItem(key, tabs);
    } catch {
      // Nothing more to do as the page goes: the last kept stays.
    }
  });

  return {
    take() {
      let text: string | null;
      let from: Storage = sessionStorage;
      try {
        text = sessionStorage.getItem(key);
        if (text === null) {
          from = localStorage;
          text = localStorage.getItem(key);
        }
      } catch {
        return null;
      }
      if (text === null) return null;
      let why: string;
      let savedAt = '';
      try {
        const raw = decode(text) as { savedAt?: unknown; value?: unknown } | null;
        savedAt = typeof raw?.savedAt === 'string' ? raw.savedAt : '';
        const r = schema.safeParse(raw?.value);
        if (r.success && savedAt) {
          // The tab's own from now on: a reload shows it, whatever another tab keeps meanwhile.
          if (from !== sessionStorage) copyToTab(text);
          own = text;
          return { value: r.data, savedAt };
        }
        why = r.success ? 'it has no date' : r.error.issues.map((i) => `${i.path.join('.') || 'draft'}: ${i.message}`)[0];
      } catch (e) {
        why = e instanceof Error ? e.message : String(e);
      }
      // Where it was read: another tab's may still read.
      from.removeItem(key);
      toast('info', `The ${what} kept as a draft${savedAt ? ` on ${formatDate(savedAt)}` : ''} no longer reads (${why}) and was dropped`, null);
      return null;
    },
    keep(value) {
      pending = { value };
      if (timer) clearTimeout(timer);
      timer = setTimeout(write, KEEP_DELAY_MS);
    },
    flush: write,
  };
}
