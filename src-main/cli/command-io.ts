/** Where a command writes its lines, and the environment it reads (the process's own unless a test gives others). */
export interface CommandIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}

export const processIo = (): CommandIo => ({ stdout: process.stdout, stderr: process.stderr, env: process.env });
