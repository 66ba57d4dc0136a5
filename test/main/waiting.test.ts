/** The page the app shows while another process keeps its data folder's database locked (main/waiting.ts). */
import { describe, expect, it } from 'vitest';
import { waitingPageUrl } from '../../main/waiting';

const page = (message: string) => {
  const url = waitingPageUrl(message);
  expect(url.startsWith('data:text/html;charset=utf-8,')).toBe(true);
  return decodeURIComponent(url.slice('data:text/html;charset=utf-8,'.length));
};

describe('the page of the app waiting for a locked data folder', () => {
  it("says openServicesWhenFree's message, the folder escaped, that closing quits; runs no script, loads nothing", () => {
    const html = page('PackBench: the database of /data/<b>"lab" & co</b> is locked by another process; waiting up to 60 s for it');
    expect(html).toContain('<h1>Waiting for the data folder</h1>');
    expect(html).toContain('<p>The database of /data/&#60;b&#62;&#34;lab&#34; &#38; co&#60;/b&#62; is locked by another process; waiting up to 60 s for it.</p>');
    expect(html).toContain('Close this window to quit.');
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    expect(html).not.toMatch(/<script|<a |<img|<form/i);
  });
});
