// The echo of our answer to a status report is not the command's output (pty-run.ts).
import { describe, expect, it } from 'vitest';
import { AnswerEchoes } from './pty-run';

const nonce = '0123456789abcdef';

describe('AnswerEchoes', () => {
  it('drops the echo of each answer, split across chunks or not', () => {
    const echoes = new AnswerEchoes(nonce);
    expect(echoes.filter(`before\n${nonce}\n`)).toBe(`before\n${nonce}\n`);
    echoes.expect();
    expect(echoes.filter(`${nonce.slice(0, 5)}`)).toBe('');
    expect(echoes.filter(`${nonce.slice(5)}\r`)).toBe('');
    expect(echoes.filter('\nrest')).toBe('rest');
    expect(echoes.filter(`\n${nonce}\n${nonce}\r\nafter`)).toBe('\nafter');
    expect(echoes.end()).toBe('');
  });

  it('drops an answer echoed twice, by the local terminal and again by the remote one through it, with output between', () => {
    const echoes = new AnswerEchoes(nonce);
    echoes.expect();
    expect(echoes.filter(`${nonce}\r\n`)).toBe('');
    expect(echoes.filter('out\r\n')).toBe('out\r\n');
    expect(echoes.filter(`${nonce}\r\r\n`)).toBe('');
    expect(echoes.filter(`x\n${nonce}\r\r`)).toBe('x\n');
    expect(echoes.filter('\nend')).toBe('end');
    expect(echoes.end()).toBe('');
  });

  it('keeps the nonce when it is not a line of its own, and gives back a held start that never completed', () => {
    const echoes = new AnswerEchoes(nonce);
    echoes.expect();
    expect(echoes.filter(`${nonce}x`)).toBe(`${nonce}x`);
    expect(echoes.filter(`\nforged ${nonce}\n`)).toBe(`\nforged ${nonce}\n`);
    expect(echoes.filter(`\x1b]6973;done;${nonce};0\x07${nonce}\r\n`)).toBe(`\x1b]6973;done;${nonce};0\x07`);
    expect(echoes.filter('0123')).toBe('');
    expect(echoes.end()).toBe('0123');
    const other = new AnswerEchoes(nonce);
    other.expect();
    expect(other.filter('a\n0123')).toBe('a\n');
    expect(other.filter('x')).toBe('0123x');
  });
});
