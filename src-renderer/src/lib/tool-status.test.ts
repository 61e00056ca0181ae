import { describe, it, expect } from 'vitest';
import { toolStatus } from './tool-status';

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

  it('never calls a failed, timed-out or stopped command Done (from its facts, not its text)', () => {
    expect(toolStatus(exec('ok', { exitCode: 0 }), false, false).label).toBe('Done');
    expect(toolStatus(exec('nope', { exitCode: 2 }), false, false).label).toBe('Failed · exit 2');
    expect(toolStatus(exec('', { exitCode: 127 }), false, false).label).toBe('Failed · exit 127');
    expect(toolStatus(exec('partial', { exitCode: 124, timedOut: true }), false, false).label).toBe('Timed out');
    expect(toolStatus(exec('', { exitCode: 124 }), false, false).label).toBe('Timed out');
    expect(toolStatus(exec('x', { exitCode: null }), false, false).label).toBe('Stopped');
    expect(toolStatus(exec('Error: interrupted', { isError: true, interrupted: true }), false, false)).toMatchObject({ label: 'Stopped', detail: 'Interrupted before it finished' });
    expect(toolStatus(exec(undefined), false, false).label).toBe('Stopped');
    // Text that looks like a status line is the command's output, not its status.
    expect(toolStatus(exec('[Command failed with exit code 3]', { exitCode: 0 }), false, false).label).toBe('Done');
    expect(toolStatus(exec('x\n[Command failed with exit code 3]'), false, false).label).toBe('Done');
  });

  it('shows refusals and answers whether or not the approval event was seen', () => {
    expect(toolStatus({ name: 'execute', approval: 'rejected' }, true, false).label).toBe('Rejected');
    expect(toolStatus({ name: 'execute', output: 'Error: no', isError: true, rejected: { by: 'person', message: 'no' } }, false, false).label).toBe('Rejected');
    expect(toolStatus({ name: 'write_file', approval: 'denied', output: 'Error: denied', isError: true }, false, false).label).toBe('Rejected');
    expect(toolStatus({ name: 'write_file', output: 'Error: x', isError: true, rejected: { by: 'rule' } }, false, false)).toEqual({ status: 'rejected', label: 'Rejected', detail: 'Refused by a rule' });
    expect(toolStatus({ name: 'write_file', output: 'Error: x', isError: true, rejected: { by: 'hook' } }, false, false).detail).toBe('Blocked by a hook');
    expect(toolStatus({ name: 'execute', approval: 'responded', output: 'the answer' }, false, false).label).toBe('Answered');
    expect(toolStatus({ name: 'execute', output: 'use make', rejected: { by: 'person', answered: true, message: 'use make' } }, false, false).label).toBe('Answered');
    // An error that merely says "denied" is an error.
    expect(toolStatus({ name: 'read_file', output: 'Error: permission denied', isError: true }, false, false).label).toBe('Error');
  });
});
