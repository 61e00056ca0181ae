// The person's shell, outside any sandbox: on this machine, or on the remote over the
// system ssh (as the person would type `ssh host` and work there).
import { execFile } from 'node:child_process';
import { shQuote } from '../text/shell-quote';
import { personEnv } from './environment';
import type { ConformanceEnvironment, Person, PersonResult } from './types';

const PERSON_TIMEOUT_MS = 60_000;

function shell(file: string, args: string[], env: Record<string, string>, cwd?: string): Promise<PersonResult> {
  return new Promise((resolve) => {
    execFile(file, args, { cwd, env, encoding: 'utf8', timeout: PERSON_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

/** The person at this machine. */
export function localPerson(env: ConformanceEnvironment): Person {
  return { sh: (script, cwd) => shell('/bin/sh', ['-c', script], personEnv(env), cwd) };
}

/**
 * The person on the remote: `<sshCommand> <host> 'cd DIR && …'` with their environment
 * exported there; one connection of their own, shared by their calls (`controlDir`).
 */
export function sshPerson(env: ConformanceEnvironment, sshCommand: string, host: string, controlDir: string): Person {
  const ssh = `${sshCommand} -o ControlMaster=auto -o ControlPersist=60 -o ${shQuote(`ControlPath=${controlDir}/person-%C`)}`;
  return {
    sh(script, cwd) {
      const exports = Object.entries(personEnv(env))
        .filter(([name]) => name !== 'PATH')
        .map(([name, value]) => `export ${name}=${shQuote(value)}`)
        .join('; ');
      const remote = `${exports}; cd ${shQuote(cwd)} && ${script}`;
      return shell('/bin/sh', ['-c', `${ssh} ${shQuote(host)} ${shQuote(remote)}`], personEnv(env));
    },
  };
}
