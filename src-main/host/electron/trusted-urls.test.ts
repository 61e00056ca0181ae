import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { externalLink, isAppPageUrl } from './trusted-urls';

const indexFile = '/opt/deepdesk/out/renderer/index.html';
const indexUrl = pathToFileURL(indexFile).href;

describe('trusted renderer URLs', () => {
  it("accepts the app's own index.html, with or without a query or fragment", () => {
    expect(isAppPageUrl(indexUrl, { indexFile })).toBe(true);
    expect(isAppPageUrl(`${indexUrl}#/threads/1`, { indexFile })).toBe(true);
    expect(isAppPageUrl(`${indexUrl}?x=1`, { indexFile })).toBe(true);
  });

  it('refuses other files, other schemes and garbage', () => {
    for (const url of [
      pathToFileURL('/opt/deepdesk/out/renderer/other.html').href,
      pathToFileURL('/tmp/index.html').href,
      'file:///opt/deepdesk/out/renderer/../renderer/evil/../../../../etc/passwd',
      'https://example.com/',
      'http://localhost:5173/',
      'data:text/html,<script>1</script>',
      'about:blank',
      '',
      'not a url',
      undefined,
    ]) {
      expect(isAppPageUrl(url, { indexFile }), String(url)).toBe(false);
    }
  });

  it('accepts the dev server origin only when one is configured', () => {
    const pages = { indexFile, devServerUrl: 'http://localhost:5173' };
    expect(isAppPageUrl('http://localhost:5173/', pages)).toBe(true);
    expect(isAppPageUrl('http://localhost:5173/src/main.tsx?t=1', pages)).toBe(true);
    expect(isAppPageUrl('http://localhost:5174/', pages)).toBe(false);
    expect(isAppPageUrl('http://127.0.0.1:5173/', pages)).toBe(false);
    expect(isAppPageUrl('http://localhost:5173/', { indexFile, devServerUrl: 'javascript:alert(1)' })).toBe(false);
  });

  it('hands only http(s) links to the OS browser', () => {
    expect(externalLink('https://docs.example.com/a?b=1')).toBe('https://docs.example.com/a?b=1');
    expect(externalLink('http://example.com')).toBe('http://example.com/');
    expect(externalLink('file:///etc/passwd')).toBeUndefined();
    expect(externalLink('javascript:alert(1)')).toBeUndefined();
    expect(externalLink('smb://server/share')).toBeUndefined();
    expect(externalLink('nope')).toBeUndefined();
  });
});
