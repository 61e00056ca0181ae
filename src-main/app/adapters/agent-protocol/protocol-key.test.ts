import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from 'vitest';
import { hostPaths } from '../../host/paths';
import { protocolKey, protocolKeyReader, rotateProtocolKey } from './protocol-key';

describe('the protocol key', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'protocol-key-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is made on first use: 32 random bytes, base64url, 0600 in the host folder (0700), the same after', () => {
    const key = protocolKey(dataDir);
    expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(key, 'base64url')).toHaveLength(32);
    const file = join(hostPaths(dataDir).dir, 'protocol-key');
    expect(readFileSync(file, 'utf8').trim()).toBe(key);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(hostPaths(dataDir).dir).mode & 0o777).toBe(0o700);
    expect(protocolKey(dataDir)).toBe(key);
    const other = mkdtempSync(join(tmpdir(), 'protocol-key-other-'));
    onTestFinished(() => rmSync(other, { recursive: true, force: true }));
    expect(protocolKey(other)).not.toBe(key);
  });

  it('rotates: the reader sees the new key at its next call, the old one no more', () => {
    const read = protocolKeyReader(dataDir);
    const old = read();
    expect(old).toBe(protocolKey(dataDir));
    const fresh = rotateProtocolKey(dataDir);
    expect(fresh).not.toBe(old);
    expect(read()).toBe(fresh);
    expect(protocolKey(dataDir)).toBe(fresh);
    expect(statSync(join(hostPaths(dataDir).dir, 'protocol-key')).mode & 0o777).toBe(0o600);
  });
});
