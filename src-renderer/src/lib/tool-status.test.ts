import { describe, it, expect } from 'vitest';
import { exitCodeOf, toolStatus } from './tool-status';

const exec = (output: string | undefined, extra: Record<string, unknown> = {}) => ({ name: 'execute', output, isError: false, ...extra });

describe('toolStatus', () => {
  it('follows the call through approval, running and its result', () => {
    expect(toolStatus({ name: 'write_file', approval: 'pending' }, true, false).status).toBe('awaiting');
    expect(toolStatus({ name: 'write_file' }, true, true).status).toBe('awaiting');
    expect(toolStatus({ name: 'write_file', approval: 'approved' }, true, false)).toEqual({ status: 'running', label: 'Running' });
    expect(toolStatus({ name: 'write_file', output: 'Updated file /a', isError: false }, false, false).label).toBe('Done');
    expect(toolStatus({ name: 'write_file', output: 'ok', approval: 'edited' }, false, false).label).toBe('Done');
    expect(toolStatus({ name: 'read_file', output: 'Error: x', isError: true }, false, false)).toMatchObject({ status: 'error', label: 'Error' });
  });

  it('never calls a failed, timed-out or stopped command Done', () => {
    expect(toolStatus(exec('ok\n[Command succeeded with exit code 0]'), false, false).label).toBe('Done');
    expect(toolStatus(exec('nope\n[Command failed with exit code 2]'), false, false).label).toBe('Failed · exit 2');
    expect(toolStatus(exec('[Command failed with exit code 127]'), false, false).label).toBe('Failed · exit 127');
    expect(toolStatus(exec('partial\n[Command timed out after 5 seconds and was killed]\n[Command failed with exit code 124]'), false, false).label).toBe('Timed out');
    expect(toolStatus(exec('[Command failed with exit code 124]'), false, false).label).toBe('Timed out');
    expect(toolStatus(exec('x\n[Command was cancelled]'), false, false).label).toBe('Stopped');
    expect(toolStatus(exec('x\n[Command was cancelled and killed]\n[Command was cancelled]'), false, false).label).toBe('Stopped');
    expect(toolStatus(exec('Error: this tool call was interrupted before it finished (the run was stopped)', { isError: true }), false, false).label).toBe('Stopped');
    expect(toolStatus(exec(undefined), false, false).label).toBe('Stopped');
    // A command that prints an exit line of its own is judged by the last line only.
    expect(toolStatus(exec('[Command failed with exit code 3]\nfine\n[Command succeeded with exit code 0]'), false, false).label).toBe('Done');
  });

  it('shows refusals and answers whether or not the approval event was seen', () => {
    expect(toolStatus({ name: 'execute', approval: 'rejected' }, true, false).label).toBe('Rejected');
    expect(toolStatus({ name: 'execute', output: 'Error: the person rejected this execute call; it was not run.', isError: true }, false, false).label).toBe('Rejected');
    expect(toolStatus({ name: 'write_file', approval: 'denied', output: 'Error: denied', isError: true }, false, false).label).toBe('Rejected');
    expect(toolStatus({ name: 'execute', approval: 'responded', output: 'the answer' }, false, false).label).toBe('Answered');
    expect(toolStatus({ name: 'execute', output: 'The person did not run this execute call and answered instead:\nuse make' }, false, false).label).toBe('Answered');
  });

  it('reads the exit code', () => {
    expect(exitCodeOf('x\n[Command failed with exit code 9]')).toBe(9);
    expect(exitCodeOf('x\n[Command succeeded with exit code 0]\n')).toBe(0);
    expect(exitCodeOf('no code')).toBeNull();
  });
});
