import { describe, it, expect } from 'vitest';
import { describeRule, sameRule } from './rules';

describe('rules', () => {
  it('describes a rule in words', () => {
    expect(describeRule({ tools: ['write_file', 'edit_file'], paths: ['/src/**'], decision: 'allow' })).toBe('Allow write_file, edit_file on /src/**');
    expect(describeRule({ tools: ['execute'], commands: ['npm test'], decision: 'allow' })).toBe('Allow execute for commands matching `npm test`');
    expect(describeRule({ operations: ['delete'], decision: 'deny' })).toBe('Deny delete operations');
    expect(describeRule({ decision: 'ask' })).toBe('Ask before every tool');
  });

  it('compares rules by id, else by content', () => {
    expect(sameRule({ id: 'a', decision: 'allow' }, { id: 'a', decision: 'deny' })).toBe(true);
    expect(sameRule({ id: 'a', decision: 'allow' }, { decision: 'allow' })).toBe(false);
    expect(sameRule({ tools: ['x'], decision: 'allow' }, { tools: ['x'], decision: 'allow' })).toBe(true);
  });
});
