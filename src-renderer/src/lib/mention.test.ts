import { describe, it, expect } from 'vitest';
import { applyMention, findMention, mentionsIn, splitAttachments } from './mention';

describe('mentions', () => {
  it('finds the mention at the caret', () => {
    expect(findMention('@', 1)).toEqual({ start: 0, query: '' });
    expect(findMention('look at @src/ma', 15)).toEqual({ start: 8, query: 'src/ma' });
    expect(findMention('mail a@b.com', 12)).toBeNull();
    expect(findMention('@done and more', 14)).toBeNull();
    expect(findMention('line\n@x', 7)).toEqual({ start: 5, query: 'x' });
  });

  it('replaces the whole word with the path', () => {
    const text = 'see @sr please';
    const m = findMention(text, 7);
    expect(m).not.toBeNull();
    expect(applyMention(text, m!, 7, '/src/main.ts')).toEqual({ text: 'see @/src/main.ts please', caret: 18 });
    const end = 'open @';
    expect(applyMention(end, findMention(end, 6)!, 6, '/a.txt')).toEqual({ text: 'open @/a.txt ', caret: 13 });
  });

  it('lists the mentions a message will attach', () => {
    expect(mentionsIn('see @/a.ts and @/src/b.md. again @/a.ts, mail x@y.z')).toEqual(['/a.ts', '/src/b.md']);
  });

  it('splits a sent message from its attached files', () => {
    const sent = 'why @/a.ts?\n\n<attached_file path="/a.ts">\nx = 1\n</attached_file>\n\n<attached_file path="/big.txt" lines="1-2000 of 9000">\nl1\n</attached_file>\n(The first 2000 of 9000 lines; read_file /big.txt with offset=2000 for the rest.)';
    expect(splitAttachments(sent)).toEqual({
      text: 'why @/a.ts?',
      files: [
        { path: '/a.ts', content: 'x = 1\n' },
        { path: '/big.txt', lines: '1-2000 of 9000', content: 'l1\n' },
      ],
    });
    expect(splitAttachments('plain')).toEqual({ text: 'plain', files: [] });
  });
});

describe('attached MCP resources', () => {
  it('are split off the message like files, named server:URI', () => {
    const sent = 'read @docs:memo://a\n\n<attached_file path="/a.ts">\nx\n</attached_file>\n\n<attached_resource server="docs" uri="memo://a?b=&quot;c&quot;">\nhello\n</attached_resource>';
    expect(splitAttachments(sent)).toEqual({
      text: 'read @docs:memo://a',
      files: [
        { path: '/a.ts', content: 'x\n' },
        { path: 'docs:memo://a?b="c"', content: 'hello\n' },
      ],
    });
  });
});
