import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { defaultDataDir } from '../../main/services/datadir';

describe('default data directory (Electron userData for PackBench)', () => {
  it('follows each platform', () => {
    expect(defaultDataDir('linux', {}, '/home/u')).toBe(join('/home/u', '.config', 'PackBench'));
    expect(defaultDataDir('linux', { XDG_CONFIG_HOME: '/x' }, '/home/u')).toBe(join('/x', 'PackBench'));
    expect(defaultDataDir('darwin', {}, '/Users/u')).toBe(join('/Users/u', 'Library', 'Application Support', 'PackBench'));
    expect(defaultDataDir('win32', { APPDATA: 'C:\\Users\\u\\AppData\\Roaming' }, 'C:\\Users\\u')).toBe(join('C:\\Users\\u\\AppData\\Roaming', 'PackBench'));
  });
});
