import { describe, it, expect } from 'vitest';
import { toolStatus } from './tool-status';

describe('toolStatus', () => {
  it('follows the call through approval, running and its result', () => {
    expect(toolStatus({ approval: 'pending' }, true, false).status).toBe('awaiting');
    expect(toolStatus({}, true, true).status).toBe('awaiting');
    expect(toolStatus({ approval: 'approved' }, true, false)).toEqual({ status: 'running', label: 'Running' });
    expect(toolStatus({}, false, false)).toEqual({ status: 'interrupted', label: 'No result' });
    expect(toolStatus({ output: 'ok', isError: false }, false, false)).toEqual({ status: 'done', label: 'Done' });
    expect(toolStatus({ output: 'ok', approval: 'edited' }, false, false).label).toBe('Done (edited)');
    expect(toolStatus({ output: 'Error: x', isError: true }, false, false).status).toBe('error');
  });

  it('shows refusals whether or not a result came', () => {
    expect(toolStatus({ approval: 'rejected' }, true, false)).toEqual({ status: 'rejected', label: 'Rejected' });
    expect(toolStatus({ approval: 'denied', output: 'denied by rule', isError: true }, false, false).label).toBe('Denied');
    expect(toolStatus({ approval: 'responded', output: 'the answer' }, false, false).label).toBe('Answered instead');
  });
});
