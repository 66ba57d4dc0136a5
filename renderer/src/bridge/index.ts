/**
 * Installs window.packbench in a browser (not in Electron, where the preload has installed it):
 * a WebSocket client of the web host that served this page, authenticated with the token from the
 * page URL (`?token=...`). Imported for its effect by renderer/src/main.ts.
 */
import type { PackbenchApi } from '../../../main/api';
import { createWsApi } from './client';

export function hostSocketUrl(location: Pick<Location, 'protocol' | 'host' | 'search'>): string {
  const token = new URLSearchParams(location.search).get('token') ?? '';
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/ws?token=${encodeURIComponent(token)}`;
}

const target = window as unknown as { packbench?: PackbenchApi };
if (!target.packbench) target.packbench = createWsApi(hostSocketUrl(window.location));
