/**
 * The Content-Security-Policy of every PackBench page (Electron window and web host): scripts only
 * from the app itself, no eval, no remote resources.
 */
export function contentSecurityPolicy(extraConnect: string[] = []): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    // Vue and uPlot set element styles at run time; no inline <style> from untrusted sources exists.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    ["connect-src 'self'", ...extraConnect].join(' '),
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
