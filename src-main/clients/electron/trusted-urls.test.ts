import { describe, expect, it } from 'vitest';
import { APP_PAGE_URL, appPageUrl, externalLink, isAppPageUrl } from './trusted-urls';

const pages = { rendererDir: '/opt/deepdesk/out/renderer' };

describe('trusted renderer URLs', () => {
  it("accepts the app's own page at app://deepdesk, with or without a query or fragment", () => {
    expect(appPageUrl(pages)).toBe('app://deepdesk/index.html');
    expect(isAppPageUrl(APP_PAGE_URL, pages)).toBe(true);
    expect(isAppPageUrl('app://deepdesk/', pages)).toBe(true);
    expect(isAppPageUrl(`${APP_PAGE_URL}#/threads/1`, pages)).toBe(true);
    expect(isAppPageUrl(`${APP_PAGE_URL}?x=1`, pages)).toBe(true);
  });

  it('refuses other pages, other hosts, file:// (even the built index.html), other schemes and garbage', () => {
    for (const url of [
      'app://deepdesk/other.html',
      'app://deepdesk/assets/index.js',
      'app://evil/index.html',
      'app://user@deepdesk/index.html',
      'app://deepdesk:8080/index.html',
      'file:///opt/deepdesk/out/renderer/index.html',
      'https://example.com/',
      'http://localhost:5173/',
      'data:text/html,<script>1</script>',
      'about:blank',
      '',
      'not a url',
      undefined,
    ]) {
      expect(isAppPageUrl(url, pages), String(url)).toBe(false);
    }
  });

  it('accepts the dev server origin only when one is configured', () => {
    const dev = { ...pages, devServerUrl: 'http://localhost:5173' };
    expect(appPageUrl(dev)).toBe('http://localhost:5173');
    expect(isAppPageUrl('http://localhost:5173/', dev)).toBe(true);
    expect(isAppPageUrl('http://localhost:5173/src/main.tsx?t=1', dev)).toBe(true);
    expect(isAppPageUrl('http://localhost:5174/', dev)).toBe(false);
    expect(isAppPageUrl('http://127.0.0.1:5173/', dev)).toBe(false);
    expect(isAppPageUrl('http://localhost:5173/', { ...pages, devServerUrl: 'javascript:alert(1)' })).toBe(false);
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
