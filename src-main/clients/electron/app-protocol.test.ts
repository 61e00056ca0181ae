// app://deepdesk: the built renderer through the web host's path-safe resolver, its CSP a
// response header (connect-src 'self' only: the page talks to the main process over IPC).
// Requests go through the handler hardenSession registers on the (faked) session.

import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FakeSession } from './testing/fake-electron';

vi.mock('electron', async () => (await import('./testing/fake-electron')).electron);
const { hardenSession } = await import('./hardening');

const root = mkdtempSync(join(tmpdir(), 'deepdesk-app-protocol-'));
const rendererDir = join(root, 'renderer');
mkdirSync(join(rendererDir, 'assets'), { recursive: true });
writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><div id="root"></div>');
writeFileSync(join(rendererDir, 'assets', 'index-abc123.js'), 'console.log(1)');
writeFileSync(join(root, 'secret.txt'), 'outside');
symlinkSync(join(root, 'secret.txt'), join(rendererDir, 'assets', 'link.txt'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const session = new FakeSession();
hardenSession(session as never, { rendererDir });

describe('the app:// protocol', () => {
  it('serves the page and its assets with the CSP header', async () => {
    for (const url of ['app://deepdesk/index.html', 'app://deepdesk/']) {
      const page = await session.fetch(url);
      expect(page.status, url).toBe(200);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await page.text()).toContain('<div id="root">');
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'self'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("object-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toMatch(/connect-src 'self';/);
      expect(csp).not.toMatch(/ws:|wss:|https?:/);
      expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const script = await session.fetch('app://deepdesk/assets/index-abc123.js');
    expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('refuses whatever lies outside the renderer folder: traversal, encoded traversal, symlinks, other hosts', async () => {
    for (const url of [
      'app://deepdesk/../secret.txt',
      'app://deepdesk/%2e%2e/secret.txt',
      'app://deepdesk/assets/..%2f..%2fsecret.txt',
      'app://deepdesk/assets/%2e%2e%2f%2e%2e%2fsecret.txt',
      'app://deepdesk/..%5csecret.txt',
      'app://deepdesk/assets/link.txt',
      'app://deepdesk/%00index.html',
      'app://deepdesk/assets',
      'app://deepdesk/missing.js',
      'app://other/index.html',
    ]) {
      const response = await session.fetch(url);
      expect(response.status, url).toBe(404);
      expect(await response.text(), url).not.toContain('outside');
      expect(response.headers.get('content-security-policy'), url).toContain("default-src 'self'");
    }
  });

  it('answers only GET and HEAD', async () => {
    expect((await session.fetch('app://deepdesk/index.html', { method: 'POST', body: 'x' })).status).toBe(405);
    const head = await session.fetch('app://deepdesk/index.html', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
