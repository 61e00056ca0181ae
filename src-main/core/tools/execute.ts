import { z } from 'zod';
import { isShellBackend } from '../backends/protocol';
import { numberArg } from './args';
import { defineTool, errorText, text } from './tool';

export const EXECUTE_DEFAULT_TIMEOUT_S = 120;
export const EXECUTE_MAX_TIMEOUT_S = 3600;

const schema = z.object({
  command: z.string({ error: 'command must be a string' }).refine((c) => c.trim() !== '', 'command must not be empty'),
  timeout: numberArg('timeout').optional(),
});

export const executeTool = defineTool({
  name: 'execute',
  description: [
    'Run a shell command in the project folder (bash, in a terminal the person can watch) and return its output followed by `[Command succeeded with exit code 0]` or `[Command failed with exit code N]`.',
    'stdout and stderr are interleaved as a terminal shows them. Each call starts fresh in the project folder: `cd` does not carry over, so chain steps with && in one command.',
    'The environment is non-interactive (CI=1, no pager, no credential prompts, stdin is empty): pass flags like --yes instead of expecting prompts; do not start editors or interactive programs.',
    `timeout is in seconds (default ${EXECUTE_DEFAULT_TIMEOUT_S}, at most ${EXECUTE_MAX_TIMEOUT_S}); on timeout every process the command started is killed and the exit code is 124.`,
    'Output over 100,000 bytes is cut in the middle, keeping the head and the tail; redirect big output to a file and read or grep it instead.',
    'Prefer read_file, grep, glob, edit_file and write_file over shell equivalents (cat, grep, sed, echo >) for files.',
  ].join('\n'),
  schema,
  async precheck(args, ctx) {
    if (!isShellBackend(ctx.backend)) return 'this workspace cannot run commands';
    return timeoutProblem(args.timeout ?? EXECUTE_DEFAULT_TIMEOUT_S);
  },
  async run(args, ctx) {
    if (!isShellBackend(ctx.backend)) return errorText('this workspace cannot run commands');
    const timeout = args.timeout ?? EXECUTE_DEFAULT_TIMEOUT_S;
    const problem = timeoutProblem(timeout);
    if (problem !== undefined) return errorText(problem);
    const result = await ctx.backend.execute(args.command, {
      timeoutS: timeout,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(ctx.onTerminalData ? { onData: ctx.onTerminalData } : {}),
    });
    const output = result.output.replace(/\n+$/, '');
    const status =
      result.exitCode === 0
        ? '[Command succeeded with exit code 0]'
        : result.exitCode === null
          ? '[Command was cancelled]'
          : `[Command failed with exit code ${result.exitCode}]`;
    return text(`${output}\n${status}`);
  },
});

function timeoutProblem(timeout: number): string | undefined {
  if (!Number.isFinite(timeout) || timeout <= 0) return `timeout must be a positive number of seconds (got ${timeout})`;
  if (timeout > EXECUTE_MAX_TIMEOUT_S) return `timeout must be at most ${EXECUTE_MAX_TIMEOUT_S} seconds (got ${timeout})`;
  return undefined;
}
