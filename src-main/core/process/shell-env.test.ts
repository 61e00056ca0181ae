import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { askLoginShellPath, buildCommandEnv, getLoginShellPath, mergePath, sanitizeEnv } from './shell-env';

describe('shell environment', () => {
  it('makes commands non-interactive', async () => {
    const env = await buildCommandEnv({ PATH: '/usr/bin:/bin', HOME: '/home/x', EDITOR: 'vim', PAGER: 'less' });
    expect(env).toMatchObject({
      CI: '1',
      GIT_TERMINAL_PROMPT: '0',
      PAGER: 'cat',
      GIT_PAGER: 'cat',
      EDITOR: 'true',
      GIT_EDITOR: 'true',
      DEBIAN_FRONTEND: 'noninteractive',
      TERM: 'xterm-256color',
      PIP_NO_INPUT: '1',
      npm_config_yes: 'true',
      HOME: '/home/x',
    });
    expect(env.GIT_SSH_COMMAND).toBe('ssh -o BatchMode=yes');
    expect(env.PATH).toBeTruthy();
  });

  it('keeps the user environment but drops our runtime and npm script variables', () => {
    const env = sanitizeEnv({
      PATH: '/work/node_modules/.bin:/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin:/usr/bin',
      MY_SETTING: 'keep',
      ELECTRON_RUN_AS_NODE: '1',
      npm_lifecycle_event: 'start',
      npm_config_cache: '/x',
      npm_package_name: 'deepdesk',
      NODE: '/usr/bin/node',
      TERM_PROGRAM: 'vscode',
      SSH_ASKPASS: '/usr/bin/ssh-askpass',
      UNSET: undefined,
    });
    expect(env).toEqual({ PATH: '/usr/bin', MY_SETTING: 'keep' });
  });

  it('withholds credential-shaped names as a class: keys, tokens, secrets, passwords, headers', () => {
    const env = sanitizeEnv({
      PATH: '/usr/bin',
      ANTHROPIC_AUTH_TOKEN: 'a',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=b',
      OTEL_EXPORTER_OTLP_METRICS_HEADERS: 'x-api-key=c',
      LANGCHAIN_API_KEY: 'd',
      MODAL_TOKEN_SECRET: 'e',
      REDIS_PASSWORD: 'f',
      PGPASSWORD: 'g',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
    });
    expect(env).toEqual({ PATH: '/usr/bin', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' });
  });

  it('does not touch PATH when not started from an npm script', () => {
    expect(sanitizeEnv({ PATH: '/a/node_modules/.bin:/usr/bin' }).PATH).toBe('/a/node_modules/.bin:/usr/bin');
  });

  it('keeps the git ssh command the user chose', async () => {
    const env = await buildCommandEnv({ PATH: '/usr/bin', GIT_SSH_COMMAND: 'ssh -i key' });
    expect(env.GIT_SSH_COMMAND).toBe('ssh -i key');
  });

  it('asks the login shell for PATH once and caches it', async () => {
    const first = getLoginShellPath();
    expect(getLoginShellPath()).toBe(first);
    const path = await first;
    if (path !== undefined) expect(path.split(':').length).toBeGreaterThan(0);
    const env = await buildCommandEnv({ PATH: '/nowhere' });
    expect(env.PATH).toBe(path === undefined ? '/nowhere' : mergePath('/nowhere', path));
  });

  it('a login shell that does not answer in time is left to finish its profile, unsignalled: what the profile holds (pyenv’s rehash lock) it releases itself', async () => {
    const home = mkdtempSync(join(tmpdir(), 'deepdesk-login-home-'));
    try {
      // A signal anywhere in here would leave the lock (pyenv takes it before it sets its trap).
      writeFileSync(join(home, '.bash_profile'), ': > "$HOME/lock" && sleep 1.5 && rm -f "$HOME/lock"\n');
      expect(await askLoginShellPath('/bin/bash', { PATH: process.env.PATH, HOME: home }, 300)).toBeUndefined();
      expect(existsSync(join(home, 'lock'))).toBe(true);
      await expect.poll(() => existsSync(join(home, 'lock'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('one that never ends is hung up at the backstop, not killed: its EXIT traps run', async () => {
    const home = mkdtempSync(join(tmpdir(), 'deepdesk-login-home-'));
    try {
      writeFileSync(join(home, 'hold-lock.sh'), ': > "$HOME/lock"\ntrap \'sleep 0.2; rm -f "$HOME/lock"\' EXIT\nsleep 300\n');
      writeFileSync(join(home, '.bash_profile'), 'bash "$HOME/hold-lock.sh"\n');
      expect(await askLoginShellPath('/bin/bash', { PATH: process.env.PATH, HOME: home }, 300, 1500)).toBeUndefined();
      await expect.poll(() => existsSync(join(home, 'lock'))).toBe(true);
      await expect.poll(() => existsSync(join(home, 'lock'))).toBe(false);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('asks from the home folder, whatever folder this process is in: no project file reaches the PATH', async () => {
    const home = mkdtempSync(join(tmpdir(), 'deepdesk-login-home-'));
    try {
      writeFileSync(join(home, '.bash_profile'), 'PATH="$(pwd):$PATH"\n');
      const path = await askLoginShellPath('/bin/bash', { PATH: '/usr/bin:/bin', HOME: home }, 30_000);
      expect(path?.split(':')[0]).toBe(realpathSync(home));
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('puts folders only our own PATH has before the login PATH', () => {
    expect(mergePath('/venv/bin:/usr/bin:/bin', '/opt/brew/bin:/usr/bin:/bin')).toBe('/venv/bin:/opt/brew/bin:/usr/bin:/bin');
    expect(mergePath('/usr/bin:/bin', '/opt/brew/bin:/usr/bin:/bin:/usr/bin')).toBe('/opt/brew/bin:/usr/bin:/bin');
    expect(mergePath(undefined, '/a:/b')).toBe('/a:/b');
  });
});
