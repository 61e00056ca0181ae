// electron-builder.yml: the fuses every installer is built with, signing and notarisation,
// and updates off until a build names a publish target (docs/packaging.md).

import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const repo = resolve(import.meta.dirname, '../../..');
const config = parse(readFileSync(join(repo, 'electron-builder.yml'), 'utf8')) as Record<string, Record<string, unknown> | unknown>;
const section = (name: string): Record<string, unknown> => config[name] as Record<string, unknown>;

describe('electron-builder.yml', () => {
  it('flips the fuses: no Node mode, no NODE_OPTIONS or --inspect, the app only from an integrity-checked asar', () => {
    expect(section('electronFuses')).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
      loadBrowserProcessSpecificV8Snapshot: false,
      grantFileProtocolExtraPrivileges: false,
    });
    // The integrity fuse checks a hash of app.asar: the app must be packed in one.
    expect(config.asar).toBe(true);
  });

  it('signs and notarises on macOS with the hardened runtime and no entitlement beyond the JIT', () => {
    const mac = section('mac');
    expect(mac).toMatchObject({ hardenedRuntime: true, notarize: true });
    const entitlements = join(repo, mac.entitlements as string);
    expect(existsSync(entitlements)).toBe(true);
    const plist = readFileSync(entitlements, 'utf8');
    expect(plist).toContain('com.apple.security.cs.allow-jit');
    for (const risky of ['allow-unsigned-executable-memory', 'disable-library-validation', 'allow-dyld-environment-variables', 'get-task-allow', 'disable-executable-page-protection']) {
      expect(plist, risky).not.toContain(risky);
    }
  });

  it('signs on Windows with SHA-256 and a timestamp', () => {
    expect(section('win').signtoolOptions).toMatchObject({ signingHashAlgorithms: ['sha256'], rfc3161TimeStampServer: expect.stringMatching(/^https?:\/\//) });
  });

  it('builds an AppImage and a deb on Linux, and publishes nowhere by default', () => {
    expect(section('linux').target).toEqual(['AppImage', 'deb']);
    expect(config.publish).toBeNull();
  });
});
