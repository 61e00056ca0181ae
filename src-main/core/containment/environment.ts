// The suite's stand-in for Deepdesk's process: the person's home is a temp folder with the
// secrets SPEC §7 names in it, and Deepdesk's environment holds its own credentials (provider
// keys and an auth token, the telemetry collectors' keys, the memories store's password as
// PGPASSWORD and inside a postgres URL). Set on this
// test process (one per file: vitest's forks pool), as the product reads process.env and
// the home from it; restored afterwards.
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import type { ConformanceEnvironment } from './types';

const tag = (name: string) => `${name}-${randomBytes(6).toString('hex')}`;

/** Registers set-up and restore of the environment for this file; the value is filled before the first test. */
export function useConformanceEnvironment(): ConformanceEnvironment {
  const pgPassword = tag('PGPW');
  const secretFiles: Record<string, string> = {
    '.ssh/id_rsa': `-----BEGIN OPENSSH PRIVATE KEY-----\n${tag('SSHKEY')}\n-----END OPENSSH PRIVATE KEY-----\n`,
    '.pgpass': `db.example:5432:*:deepdesk:${tag('PGPASS')}\n`,
    '.pg_service.conf': `[memories]\nhost=db.example\npassword=${tag('PGSERVICE')}\n`,
    '.aws/credentials': `[default]\naws_access_key_id=AKIAEXAMPLE\naws_secret_access_key=${tag('AWS')}\n`,
  };
  const personClaudeFiles: Record<string, string> = {
    '.claude/settings.json': `{"permissions":{"deny":["Bash(${tag('deny')})"]}}\n`,
    '.claude/skills/mine/SKILL.md': `---\nname: mine\ndescription: ${tag('skill')}\n---\n`,
  };
  const credentials: Record<string, string> = {
    PGPASSWORD: pgPassword,
    ANTHROPIC_API_KEY: tag('sk-ant'),
    OPENAI_API_KEY: tag('sk-openai'),
    ANTHROPIC_AUTH_TOKEN: tag('ant-token'),
    // The telemetry collector's key (issue 51): in the headers variables, for all signals and for traces.
    OTEL_EXPORTER_OTLP_HEADERS: `x-api-key=${tag('otel-all')}`,
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: `authorization=${tag('otel-traces')}`,
    LANGSMITH_API_KEY: tag('lsv2'),
    // The memories store's URL with its password (the same password, given another way).
    DATABASE_URL: `postgres://deepdesk:${pgPassword}@db.example:5432/memories`,
  };
  const secretOfFile = Object.fromEntries(Object.entries(secretFiles).map(([rel, text]) => [rel, /(?:SSHKEY|PGPASS|PGSERVICE|AWS)-[0-9a-f]+/.exec(text)![0]]));
  const env: ConformanceEnvironment = {
    home: '',
    secretFiles,
    secretOfFile,
    personClaudeFiles,
    credentials,
    secretValues: [...Object.values(secretOfFile), ...Object.values(credentials).filter((v) => !v.startsWith('postgres://'))],
  };
  const saved = new Map<string, string | undefined>();
  let home = '';

  beforeAll(() => {
    home = realpathSync(mkdtempSync(join(tmpdir(), 'dd-contain-home-')));
    for (const [rel, text] of Object.entries({ ...secretFiles, ...personClaudeFiles })) {
      mkdirSync(dirname(join(home, rel)), { recursive: true });
      writeFileSync(join(home, rel), text, { mode: 0o600 });
    }
    writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = Person\n\temail = person@example.com\n[init]\n\tdefaultBranch = main\n[protocol "file"]\n\tallow = always\n');
    env.home = home;
    for (const [name, value] of Object.entries({ HOME: home, ...credentials })) {
      saved.set(name, process.env[name]);
      process.env[name] = value;
    }
  });

  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    rmSync(home, { recursive: true, force: true });
  });

  return env;
}

/** The person's own environment for their shell (not Deepdesk's: no credentials). */
export function personEnv(env: ConformanceEnvironment): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: env.home,
    LANG: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PAGER: 'cat',
    PAGER: 'cat',
  };
}
