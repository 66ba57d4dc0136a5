import './strictCsp';
import { createApp } from 'vue';
import './styles/theme.css';
import './styles/base.css';
import App from './App.vue';
import { makeRouter } from './router';
import { initTheme } from './stores/theme';
import { guardNumberEntry } from './components/numberEntry';

async function boot(): Promise<void> {
  initTheme();
  guardNumberEntry(document);
  // In Electron the preload has installed window.packbench; in a browser the bridge installs the
  // WebSocket client (token from the page URL) before anything calls the API.
  if (!('packbench' in window)) await import('./bridge');
  createApp(App).use(makeRouter()).mount('#app');
}

void boot();
