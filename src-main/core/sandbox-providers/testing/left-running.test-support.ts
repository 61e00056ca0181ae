import type { ProviderSandbox } from '../provider';

/**
 * A line that prints how many processes in the box run `sleep TAG` (a tag no other command
 * sleeps for): a command's tree that was ended leaves none, whatever the machine's speed. The
 * line holds the tag too, so only a process whose whole line is `sleep TAG` counts.
 */
export function sleepingLine(tag: string): string {
  return `n=0; for f in /proc/[0-9]*/cmdline; do [ "$(tr '\\0' ' ' < "$f" 2>/dev/null)" = "sleep ${tag} " ] && n=$((n+1)); done; echo $n`;
}

/** How many processes in the sandbox run `sleep TAG`. */
export async function sleepingFor(sb: ProviderSandbox, tag: string): Promise<number> {
  return Number((await sb.execute(sleepingLine(tag), { timeoutMs: 30_000 })).output);
}
