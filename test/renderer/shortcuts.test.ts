import { afterEach, describe, expect, it, vi } from 'vitest';
import { dispatchShortcut, matches, registerShortcuts, shortcutGroups } from '../../renderer/src/stores/shortcuts';

function key(init: KeyboardEventInit, target?: EventTarget): KeyboardEvent {
  const e = new KeyboardEvent('keydown', { bubbles: true, cancelable: true, ...init });
  if (target) Object.defineProperty(e, 'target', { value: target });
  return e;
}

describe('shortcuts', () => {
  const offs: (() => void)[] = [];
  afterEach(() => offs.splice(0).forEach((f) => f()));

  it('matches chords by modifiers, code and key', () => {
    expect(matches('Alt+2', key({ key: '™', code: 'Digit2', altKey: true }))).toBe(true);
    expect(matches('Alt+2', key({ key: '2', code: 'Digit2' }))).toBe(false);
    expect(matches('?', key({ key: '?', shiftKey: true }))).toBe(true);
    expect(matches('Delete', key({ key: 'Delete' }))).toBe(true);
    expect(matches('Ctrl+Enter', key({ key: 'Enter', ctrlKey: true }))).toBe(true);
    expect(matches('Ctrl+Enter', key({ key: 'Enter' }))).toBe(false);
  });

  it('dispatches to the latest group and skips plain keys while typing', () => {
    const outer = vi.fn();
    const inner = vi.fn();
    offs.push(registerShortcuts('outer', [{ keys: 'r', description: 'outer', run: outer }]));
    offs.push(registerShortcuts('inner', [{ keys: 'r', description: 'inner', run: inner }]));
    expect(shortcutGroups.map((g) => g.title)).toEqual(['outer', 'inner']);
    expect(dispatchShortcut(key({ key: 'r', code: 'KeyR' }))).toBe(true);
    expect(inner).toHaveBeenCalledTimes(1);
    expect(outer).not.toHaveBeenCalled();
    const input = document.createElement('input');
    expect(dispatchShortcut(key({ key: 'r', code: 'KeyR' }, input))).toBe(false);
  });

  it("names the space bar 'Space', and leaves a key to the page while its shortcut does not apply", () => {
    expect(matches('Space', key({ key: ' ', code: 'Space' }))).toBe(true);
    expect(matches('Space', key({ key: ' ', code: 'Space', shiftKey: true }))).toBe(false);
    let frames = false;
    const play = vi.fn();
    offs.push(registerShortcuts('playback', [{ keys: 'Space', description: 'play', run: play, when: () => frames }]));
    const space = key({ key: ' ', code: 'Space' });
    expect(dispatchShortcut(space)).toBe(false);
    expect(space.defaultPrevented).toBe(false);
    frames = true;
    expect(dispatchShortcut(key({ key: ' ', code: 'Space' }))).toBe(true);
    expect(play).toHaveBeenCalledTimes(1);
  });

  it('unregisters a group', () => {
    const off = registerShortcuts('g', [{ keys: 'x', description: 'x', run: () => {} }]);
    off();
    expect(shortcutGroups.length).toBe(0);
  });
});
