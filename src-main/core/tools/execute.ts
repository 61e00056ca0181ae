import { z } from 'zod';
import { isShellBackend } from '../backends/protocol';
import { boolArg, numberArg } from './args';
import { defineTool, errorText, type ToolContext, type ToolOutput } from './tool';

export const EXECUTE_DEFAULT_TIMEOUT_S = 120;
/** The last line of a cancelled command's output, when the backend wrote one. */
const CANCELLED_LINE = /(?:^|\n)\[Command was cancelled[^\]\n]*\]$/;
export const EXECUTE_MAX_TIMEOUT_S = 3600;

const commandArgs = {
  command: z.string({ error: 'command must be a string' }).refine((c) => c.trim() !== '', 'command must not be empty'),
  timeout: numberArg('timeout').optional(),
};

/** Where commands run in a sandbox (SPEC §7): `sandbox: false` with a reason runs one outside it, always after asking. */
const sandboxedSchema = z
  .object({
    ...commandArgs,
    sandbox: boolArg('sandbox').optional(),
    reason: z.string({ error: 'reason must be a string' }).optional(),
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

const description = [
  'Run a bash command in the project folder; returns its output and exit status.',
  'Each call starts fresh (cd does not carry over: chain steps with &&). It is non-interactive (no prompts, empty stdin): pass flags like --yes.',
  `timeout: seconds, default ${EXECUTE_DEFAULT_TIMEOUT_S}, at most ${EXECUTE_MAX_TIMEOUT_S}. Output over 100,000 bytes keeps only its head and tail: send big output to a file and grep it.`,
  'Prefer the file tools to cat, grep, sed or echo > for files.',
].join('\n');

interface CommandArgs {
  command: string;
  timeout?: number;
  sandbox?: boolean;
}

const commandTool = {
  name: 'execute',
  description,
  async precheck(args: CommandArgs, ctx: ToolContext) {
    if (!isShellBackend(ctx.backend)) return 'this workspace cannot run commands';
    return timeoutProblem(args.timeout ?? EXECUTE_DEFAULT_TIMEOUT_S);
  },
  async run(args: CommandArgs, ctx: ToolContext): Promise<ToolOutput> {
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
      ...(ctx.attribution ? { attribution: ctx.attribution } : {}),
      ...(ctx.reviewLayer ? { reviewLayer: ctx.reviewLayer } : {}),
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
};

/** execute where commands may run in a sandbox: it also takes `sandbox` and `reason` (what they mean is the sandbox's prompt section). */
export const executeTool = defineTool({ ...commandTool, schema: sandboxedSchema });

/** execute where there is no sandbox to leave. */
export const executeWithoutSandboxTool = defineTool({ ...commandTool, schema: z.object(commandArgs) });

function timeoutProblem(timeout: number): string | undefined {
  if (!Number.isFinite(timeout) || timeout <= 0) return `timeout must be a positive number of seconds (got ${timeout})`;
  if (timeout > EXECUTE_MAX_TIMEOUT_S) return `timeout must be at most ${EXECUTE_MAX_TIMEOUT_S} seconds (got ${timeout})`;
  return undefined;
}
