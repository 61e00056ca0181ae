// Threads stored before results carried their facts still show them: read from core's words.
import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../../core/models/types';
import { INTERRUPTED_RESULT } from '../../core/agent/dangling';
import { storedResultFacts } from './stored-result-facts';

const old = (content: string, toolName = 'execute'): Extract<ChatMessage, { role: 'tool' }> => ({ role: 'tool', toolCallId: 'c', toolName, content });
const facts = (content: string, toolName?: string) => storedResultFacts(old(content, toolName), content);

describe('the facts of a stored tool result', () => {
  it('are the stored ones when it has them (its text is not read)', () => {
    const message = { ...old('x\n[Command failed with exit code 3]'), exitCode: 0 };
    expect(storedResultFacts(message, 'x\n[Command failed with exit code 3]')).toEqual({ exitCode: 0 });
  });

  it('of an old execute: the exit code, a timeout, a stop, judged by the status line at its end', () => {
    expect(facts('ok\n[Command succeeded with exit code 0]')).toEqual({ exitCode: 0 });
    expect(facts('nope\n[Command failed with exit code 2]')).toEqual({ exitCode: 2 });
    expect(facts('no\n[Command failed with exit code 1]\n[Sandbox blocked a write to /etc]')).toEqual({ exitCode: 1 });
    expect(facts('partial\n[Command timed out after 5 seconds and was killed]\n[Command failed with exit code 124]')).toEqual({ exitCode: 124, timedOut: true });
    expect(facts('x\n[Command was cancelled and killed]')).toEqual({ exitCode: null });
    expect(facts('[Command failed with exit code 3]\nfine\n[Command succeeded with exit code 0]')).toEqual({ exitCode: 0 });
    expect(facts('x\n[Command failed with exit code 3]', 'read_file')).toEqual({});
  });

  it('of an old refusal: who refused, and what the person said', () => {
    expect(facts('Error: the person rejected this execute call; it was not run. They said: not now')).toEqual({ rejected: { by: 'person', message: 'not now' } });
    expect(facts('Error: the person rejected this execute call; it was not run.')).toEqual({ rejected: { by: 'person' } });
    expect(facts('The person did not run this execute call and answered instead:\nuse make')).toEqual({ rejected: { by: 'person', answered: true, message: 'use make' } });
    expect(facts('Error: this execute call is not allowed: rm is denied (never remove). Do not retry it; find another way or ask the person.')).toEqual({ rejected: { by: 'rule' } });
    expect(facts('Error: blocked by hook: secrets stay put', 'write_file')).toEqual({ rejected: { by: 'hook' } });
    expect(facts('Error: plan mode is read-only; ask the user to switch modes to make changes', 'write_file')).toEqual({ rejected: { by: 'mode' } });
    expect(facts('Error: permission denied', 'read_file')).toEqual({});
    expect(facts(INTERRUPTED_RESULT)).toEqual({ interrupted: true });
  });

  it('of an old eviction: the file its notice names', () => {
    expect(facts('The tool result was too large to include (9 characters, 1 lines), so it was saved to /large_tool_results/call_1.\nRead it…', 'grep')).toEqual({ evictedTo: '/large_tool_results/call_1' });
  });
});
