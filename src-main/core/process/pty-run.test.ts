// The echo of our answer to a status report is not the command's output (pty-run.ts).
import { describe, expect, it } from 'vitest';
import { AnswerEchoes } from './pty-run';

const nonce = '0123456789abcdef';

describe('AnswerEchoes', () => {
  it('drops the echo of each answer where it comes next, split across chunks or not', () => {
    const echoes = new AnswerEchoes(nonce);
    expect(echoes.filter('before')).toBe('before');
    echoes.expect();
    expect(echoes.filter(`${nonce.slice(0, 5)}`)).toBe('');
    expect(echoes.filter(`${nonce.slice(5)}\r`)).toBe('');
    expect(echoes.filter('\nrest')).toBe('rest');
    echoes.expect();
    echoes.expect();
    expect(echoes.filter(`${nonce}\n${nonce}\r\nafter`)).toBe('after');
    expect(echoes.end()).toBe('');
  });

  it('drops nothing more once something else comes first (no echo, or a command printing in between)', () => {
    const echoes = new AnswerEchoes(nonce);
    echoes.expect();
    expect(echoes.filter('out\n')).toBe('out\n');
    expect(echoes.filter(`${nonce}\r\n`)).toBe(`${nonce}\r\n`);
  });

  it('gives back a held start of an echo that never completed', () => {
    const echoes = new AnswerEchoes(nonce);
    echoes.expect();
    expect(echoes.filter('0123')).toBe('');
    expect(echoes.end()).toBe('0123');
    const other = new AnswerEchoes(nonce);
    other.expect();
    expect(other.filter('0123')).toBe('');
    expect(other.filter('x')).toBe('0123x');
  });
});
