/**
 * What the app shows while it waits for its data folder: another process holds the database's write
 * lock, openServicesWhenFree waits up to a minute, and the app's window comes only once the folder is
 * open (before, nothing showed but a console line). A static page for a small window of its own: no
 * script (the window runs none), a policy that loads nothing, the message escaped (it names a folder).
 */
const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** 'PackBench: the database of ... for it' as a sentence of the page: 'The database of ... for it.' */
function sentence(message: string): string {
  const text = message.replace(/^PackBench: /, '');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/** The page as a data: URL, saying `message` (openServicesWhenFree's, which names the folder). */
export function waitingPageUrl(message: string): string {
  const html = [
    '<!doctype html><html><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    '<title>PackBench</title>',
    '<style>body{font:14px/1.5 system-ui,sans-serif;margin:24px;color:#222;background:#fafafa}h1{font-size:16px;margin:0 0 12px}</style>',
    '</head><body><h1>Waiting for the data folder</h1>',
    `<p>${escapeHtml(sentence(message))}</p>`,
    '<p>PackBench opens as soon as the other process lets go of it. Close this window to quit.</p>',
    '</body></html>',
  ].join('');
  return `data:text/html;charset=utf-8,${encodeURIComponent(html)}`;
}
