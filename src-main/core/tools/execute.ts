import { z } from 'zod';
import { isShellBackend } from '../backends/protocol';
import { boolArg, numberArg } from './args';
import { defineTool, errorText } from './tool';

export const EXECUTE_DEFAULT_TIMEOUT_S = 120;
/** The last line of a cancelled command's output, when the backend wrote one. */
const CANCELLED_LINE = /(?:^|\n)\[Command was cancelled[^\]\n]*\]$/;
export const EXECUTE_MAX_TIMEOUT_S = 3600;

const schema = z
  .object({
    command: z.string({ error: 'command must be a string' }).refine((c) => c.trim() !== '', 'command must not be empty'),
    timeout: numberArg('timeout').optional(),
    sandbox: boolArg('sandbox')
      .optional()
      .describe('false runs the command outside the sandbox; it always asks the person first. Default true.'),
    reason: z
      .string({ error: 'reason must be a string' })
      .optional()
      .describe('Required with sandbox: false: why the command must run outside the sandbox, shown to the person.'),
  })
  .superRefine((args, ctx) => {
    if (args.sandbox === false && (args.reason ?? '').trim() === '') {
      ctx.addIssue({
        code: 'custom',
        path: ['reason'],
        message: 'reason is required with sandbox: false: say why the command must run outside the sandbox',
      });
    }
  });

/** What the model is told about the sandbox (SPEC §7). */
export const SANDBOX_DESCRIPTION = [
  'Commands run inside an OS sandbox where one is available: they can read everything except secrets (~/.ssh, ~/.aws, ~/.gnupg, credentials, browser profiles, keychains, Deepdesk\'s data), write only inside the project folder and $TMPDIR (a private temp folder emptied after each command), never .git/hooks, .git/config or .deepdesk/; they have no view of other processes and no network access except the domains the person allowed for this folder (none by default; reached through the HTTP(S)_PROXY set for you), so installs and downloads usually fail.',
  'When the sandbox blocked something, the result ends with a line starting `[Sandbox blocked` that says what: do not treat that as a broken tool, and do not retry the same thing.',
  'If a command truly needs to go beyond the sandbox (network, writing outside the folder), call execute again with sandbox: false and a short reason the person will read: such a call always asks the person first, and may be refused.',
].join('\n');

export const executeTool = defineTool({
  name: 'execute',
  description: [
    'Run a shell command in the project folder (bash, in a terminal the person can watch) and return its output followed by `[Command succeeded with exit code 0]` or `[Command failed with exit code N]`.',
    'stdout and stderr are interleaved as a terminal shows them. Each call starts fresh in the project folder: `cd` does not carry over, so chain steps with && in one command.',
    'The environment is non-interactive (CI=1, no pager, no credential prompts, stdin is empty): pass flags like --yes instead of expecting prompts; do not start editors or interactive programs.',
    `timeout is in seconds (default ${EXECUTE_DEFAULT_TIMEOUT_S}, at most ${EXECUTE_MAX_TIMEOUT_S}); on timeout every process the command started is killed and the exit code is 124.`,
    'Output over 100,000 bytes is cut in the middle, keeping the head and the tail; redirect big output to a file and read or grep it instead.',
    'Prefer read_file, grep, glob, edit_file and write_file over shell equivalents (cat, grep, sed, echo >) for files.',
    SANDBOX_DESCRIPTION,
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
      ...(args.sandbox === false ? { sandbox: false } : {}),
      ...(ctx.traceparent !== undefined ? { traceparent: ctx.traceparent } : {}),
    });
    let output = result.output.replace(/\n+$/, '');
    // The blocked line comes last, after the exit status (SPEC §7).
    const blocked = result.sandboxBlocked;
    if (blocked && output.endsWith(blocked)) output = output.slice(0, -blocked.length).replace(/\n+$/, '');
    const facts = { exitCode: result.exitCode, ...(result.timedOut ? { timedOut: true } : {}) };
    // A stopped command says so once: the backend's own line ("… cancelled and killed") is the status.
    if (result.exitCode === null && CANCELLED_LINE.test(output)) return { text: `${output}${blocked ? `\n${blocked}` : ''}`, ...facts };
    const status =
      result.exitCode === 0
        ? '[Command succeeded with exit code 0]'
        : result.exitCode === null
          ? '[Command was cancelled]'
          : `[Command failed with exit code ${result.exitCode}]`;
    return { text: `${output}\n${status}${blocked ? `\n${blocked}` : ''}`, ...facts };
  },
});

function timeoutProblem(timeout: number): string | undefined {
  if (!Number.isFinite(timeout) || timeout <= 0) return `timeout must be a positive number of seconds (got ${timeout})`;
  if (timeout > EXECUTE_MAX_TIMEOUT_S) return `timeout must be at most ${EXECUTE_MAX_TIMEOUT_S} seconds (got ${timeout})`;
  return undefined;
}
