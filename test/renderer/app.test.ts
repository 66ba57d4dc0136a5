import { describe, expect, it, vi } from 'vitest';
import { mount } from '@vue/test-utils';
import { createMemoryHistory, createRouter } from 'vue-router';
import { installFakeApi, settle } from './fakeApi';
import App from '../../renderer/src/App.vue';
import { routes } from '../../renderer/src/router';
import { initTheme, setThemePref, theme, toggleTheme } from '../../renderer/src/stores/theme';
import { toasts } from '../../renderer/src/stores/toasts';

vi.mock('uplot', () => ({ default: class { static paths = {}; destroy() {} setSize() {} } }));

describe('theme', () => {
  it('follows a remembered choice and toggles', () => {
    localStorage.setItem('packbench.theme', 'dark');
    theme.pref = 'dark';
    initTheme();
    expect(document.documentElement.dataset.theme).toBe('dark');
    toggleTheme();
    expect(document.documentElement.dataset.theme).toBe('light');
    expect(localStorage.getItem('packbench.theme')).toBe('light');
    setThemePref('system');
    expect(localStorage.getItem('packbench.theme')).toBe(null);
  });
});

describe('App shell', () => {
  it('shows the workspaces, the queue and data dir, shortcuts, and batch notifications', async () => {
    const api = installFakeApi();
    const info = { version: '0.1.0', dataDir: '/data/pb', cores: 2, totalMemoryBytes: 1, platform: 'linux', electron: true, recoveredRuns: 2 };
    const realCall = api.call;
    api.call = (async (method: string, params: unknown) => (method === 'app.info' ? info : realCall(method as never, params as never))) as typeof api.call;
    const shown: { title: string; body?: string }[] = [];
    vi.stubGlobal(
      'Notification',
      class {
        static permission = 'granted';
        constructor(title: string, o: { body?: string }) {
          shown.push({ title, body: o.body });
        }
      },
    );
    const router = createRouter({ history: createMemoryHistory(), routes });
    router.push('/history');
    await router.isReady();
    const w = mount(App, { global: { plugins: [router] }, attachTo: document.body });
    await settle(10);

    expect(w.findAll('[data-testid^="nav-"]').map((n) => n.attributes('data-testid'))).toEqual(['nav-editor', 'nav-batch', 'nav-inspector', 'nav-history']);
    expect(w.find('[data-testid="nav-history"]').classes()).toContain('router-link-active');
    const bar = w.find('[data-testid="statusbar"]').text();
    expect(bar).toContain('0 running · 0 queued · 2 at a time');
    expect(bar).toContain('/data/pb');
    // Runs a crash interrupted, re-queued when the data folder was opened: said until dismissed.
    expect(toasts.map((t) => t.text)).toEqual(['Re-queued 2 runs interrupted by an earlier crash: each resumes from its last checkpoint, or starts again']);

    await w.find('[data-testid="statusbar-queue"]').trigger('click');
    await settle();
    expect(w.find('[data-testid="statusbar"]').text()).toContain('Queue paused');
    // Runs the user paused are counted apart: they are neither running nor about to start.
    api.emit('queue.updated', { paused: false, running: 1, runningElsewhere: 0, pausedRuns: 2, queued: 3, concurrency: 2, threadsPerRun: 1, checkpointSeconds: 60, waiting: null });
    await settle(1);
    expect(w.find('[data-testid="statusbar"]').text()).toContain('Queue · 1 running · 2 paused · 3 queued · 2 at a time');
    // A run of another process on the folder (`packbench run` beside the app) is running too: it said '0 running'.
    api.emit('queue.updated', { paused: false, running: 0, runningElsewhere: 1, pausedRuns: 0, queued: 0, concurrency: 2, threadsPerRun: 1, checkpointSeconds: 60, waiting: null });
    await settle(1);
    expect(w.find('[data-testid="statusbar"]').text()).toContain('Queue · 1 running (1 in another process) · 0 queued');
    // Queued runs held by a data folder that takes no writes (its disk filled by another program) say why, and what they need.
    const waiting = 'the disk of the data folder is full: queued runs start, and the outcomes of ended runs are stored, once space is freed on it (SQLITE_FULL, /data, 0 B free)';
    api.emit('queue.updated', { paused: false, running: 0, runningElsewhere: 0, pausedRuns: 0, queued: 1, concurrency: 2, threadsPerRun: 1, checkpointSeconds: 60, waiting });
    await settle(1);
    expect(w.find('[data-testid="statusbar-waiting"]').text()).toBe(`Queue waits: ${waiting}`);
    expect(w.find('[data-testid="statusbar-waiting"]').attributes('title')).toBe(waiting);

    window.dispatchEvent(new KeyboardEvent('keydown', { key: '?', shiftKey: true }));
    await settle(1);
    expect(w.find('[data-testid="shortcuts-overlay"]').text()).toContain('Go to Batch manager');
    window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape' }));
    await settle(1);
    expect(w.find('[data-testid="shortcuts-overlay"]').exists()).toBe(false);

    window.dispatchEvent(new KeyboardEvent('keydown', { key: '2', code: 'Digit2', altKey: true }));
    // The workspace is a lazy chunk: the route changes once it has loaded.
    await vi.waitFor(() => expect(router.currentRoute.value.path).toBe('/batch'), { timeout: 5000 });
    expect(router.currentRoute.value.path).toBe('/batch');

    api.emit('batch.finished', { batchId: 'b1', name: 'sweep A', done: 3, failed: 1, cancelled: 0 });
    await settle(1);
    expect(toasts.at(-1)).toMatchObject({ kind: 'error', text: 'Batch “sweep A” finished: 3 done, 1 failed' });
    expect(shown).toEqual([{ title: 'PackBench: batch finished', body: 'Batch “sweep A” finished: 3 done, 1 failed' }]);
    w.unmount();
    vi.unstubAllGlobals();
  });
});
