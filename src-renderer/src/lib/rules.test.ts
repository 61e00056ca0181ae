import { describe, it, expect } from 'vitest';
import { describeRule } from './rules';

describe('rules', () => {
  it('describes a rule in words', () => {
    expect(describeRule({ tools: ['write_file', 'edit_file'], paths: ['/src/**'], decision: 'allow' })).toBe('Allow write_file, edit_file on /src/**');
    expect(describeRule({ tools: ['execute'], commands: ['npm test'], decision: 'allow' })).toBe('Allow execute for commands matching `npm test`');
    expect(describeRule({ operations: ['delete'], decision: 'deny' })).toBe('Deny delete operations');
    expect(describeRule({ decision: 'ask' })).toBe('Ask before every tool');
  });
});
