import { describe, expect, it } from 'vitest';
import { alwaysAllowLabel, editFields, editedAfter, editedArgs, initialDrafts } from './approval-edit';

describe('editing a paused call', () => {
  it('edits a command as text, not JSON, and keeps the other arguments', () => {
    const args = { command: 'echo "a\\nb" > out.txt', timeout: 30 };
    const fields = editFields('execute', args);
    expect(fields.map((f) => f.label)).toEqual(['Command']);
    const drafts = initialDrafts(fields, args);
    expect(drafts.command).toBe('echo "a\\nb" > out.txt');
    expect(editedArgs('execute', fields, args, { command: 'ls' })).toEqual({ args: { command: 'ls', timeout: 30 } });
    expect(editedArgs('execute', fields, args, { command: '  ' })).toEqual({ error: 'The command is empty.' });
  });

  it("edits a write's content and an edit's strings", () => {
    const write = { file_path: '/a.md', content: 'line one\nline two\n' };
    expect(initialDrafts(editFields('write_file', write), write)).toEqual({ content: 'line one\nline two\n' });
    expect(editedArgs('write_file', editFields('write_file', write), write, { content: 'new\n' })).toEqual({ args: { file_path: '/a.md', content: 'new\n' } });
    const edit = { file_path: '/a.md', old_string: 'x', new_string: 'y', replace_all: true };
    const fields = editFields('edit_file', edit);
    expect(fields.map((f) => f.label)).toEqual(['Text to replace', 'Replacement text']);
    expect(editedArgs('edit_file', fields, edit, { old_string: 'x', new_string: 'z' })).toEqual({ args: { ...edit, new_string: 'z' } });
  });

  it('falls back to JSON for other tools, and checks it', () => {
    const args = { pattern: 'x' };
    const fields = editFields('grep', args);
    expect(initialDrafts(fields, args)).toEqual({ '': '{\n  "pattern": "x"\n}' });
    expect(editedArgs('grep', fields, args, { '': '{"pattern":"y"}' })).toEqual({ args: { pattern: 'y' } });
    expect(editedArgs('grep', fields, args, { '': '[1]' })).toEqual({ error: 'The arguments must be a JSON object.' });
    expect('error' in editedArgs('grep', fields, args, { '': '{' })).toBe(true);
    // A write whose content is not text is edited as JSON too.
    expect(editFields('write_file', { file_path: '/a', content: 5 })[0]!.label).toBe('Arguments (JSON)');
  });

  it('says "always allow" once', () => {
    expect(alwaysAllowLabel('Always allow the command `git status`, with any further arguments.', '')).toBe('Always allow the command `git status`, with any further arguments.');
    expect(alwaysAllowLabel('`ls` anywhere', '')).toBe('Always allow `ls` anywhere');
    expect(alwaysAllowLabel(undefined, 'Allow execute for commands matching `git *`')).toBe('Always allow execute for commands matching `git *`');
  });
});

describe('editedAfter', () => {
  it('applies the person\'s strings to the file the approval showed', () => {
    expect(editedAfter('a\nb\nc\nb\n', { old_string: 'b', new_string: 'B' })).toBe('a\nB\nc\nb\n');
    expect(editedAfter('a\nb\nc\nb\n', { old_string: 'b', new_string: 'B', replace_all: true })).toBe('a\nB\nc\nB\n');
    expect(editedAfter('x\r\ny\r\n', { old_string: 'x\ny', new_string: 'z' })).toBe('z\n');
    expect(editedAfter('cost $1', { old_string: 'cost', new_string: '$& $1' })).toBe('$& $1 $1');
  });

  it('is null when they do not apply', () => {
    expect(editedAfter('abc', { old_string: 'zzz', new_string: 'y' })).toBeNull();
    expect(editedAfter('abc', { old_string: '', new_string: 'y' })).toBeNull();
    expect(editedAfter('abc', { new_string: 'y' })).toBeNull();
  });
});
