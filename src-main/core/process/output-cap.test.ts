import { describe, expect, it } from 'vitest';
import { capText, OutputCap } from './output-cap';

function lines(from: number, to: number): string {
  const out: string[] = [];
  for (let i = from; i <= to; i++) out.push(String(i));
  return out.join('\n') + '\n';
}

describe('OutputCap', () => {
  it('leaves output within the budget untouched', () => {
    const text = lines(1, 1000);
    expect(capText(text, 100_000)).toEqual({ text, truncated: false, omittedBytes: 0 });
  });

  it('cuts only output over the budget, and a cut result still fits in it', () => {
    const exact = 'x'.repeat(99_999) + '\n';
    expect(capText(exact, 100_000)).toEqual({ text: exact, truncated: false, omittedBytes: 0 });
    const over = capText(exact + 'y', 100_000);
    expect(over.truncated).toBe(true);
    expect(Buffer.byteLength(over.text)).toBeLessThanOrEqual(100_000);
    expect(over.text.endsWith('y')).toBe(true);
  });

  it('keeps the head and the tail on whole lines with a marker saying how much was cut', () => {
    const text = lines(1, 200_000);
    const result = capText(text, 100_000);
    expect(result.truncated).toBe(true);
    expect(Buffer.byteLength(result.text)).toBeLessThanOrEqual(100_000);
    expect(result.text.startsWith('1\n2\n3\n')).toBe(true);
    expect(result.text.endsWith('199999\n200000\n')).toBe(true);
    const marker = new RegExp(`\\n\\[\\.\\.\\. ${result.omittedBytes} bytes of output truncated[^\\n]*\\]\\n`);
    expect(result.text).toMatch(marker);
    const [head, tail] = result.text.split(marker);
    // Head about 40% of the budget, tail about 60%; every kept line is whole.
    expect(Buffer.byteLength(head ?? '')).toBeGreaterThan(30_000);
    expect(Buffer.byteLength(tail ?? '')).toBeGreaterThan(50_000);
    expect(Buffer.byteLength(head ?? '') + Buffer.byteLength(tail ?? '') + 1 + result.omittedBytes).toBe(Buffer.byteLength(text));
    for (const line of `${head}\n${tail}`.split('\n').filter(Boolean)) expect(line).toMatch(/^\d+$/);
  });

  it('gives the same result written in small pieces as at once', () => {
    const text = lines(1, 100_000);
    const cap = new OutputCap(20_000);
    for (let i = 0; i < text.length; i += 777) cap.write(text.slice(i, i + 777));
    expect(cap.finish()).toEqual(capText(text, 20_000));
    expect(cap.totalBytes).toBe(Buffer.byteLength(text));
  });

  it('never cuts inside a multi-byte character', () => {
    const text = '日本語テキスト'.repeat(20_000);
    const result = capText(text, 10_000);
    expect(result.truncated).toBe(true);
    expect(result.text).not.toContain('\ufffd');
    const [head, tail] = result.text.split(/\n\[\.\.\.[^\n]*\]\n/);
    expect(text.startsWith(head ?? 'x')).toBe(true);
    expect(text.endsWith(tail ?? 'x')).toBe(true);
  });

  it('keeps memory bounded while a flood is written', () => {
    const cap = new OutputCap(100_000);
    const chunk = 'y\n'.repeat(32 * 1024);
    for (let i = 0; i < 800; i++) cap.write(chunk); // 50 MiB
    const internal = cap as unknown as { tail: Buffer[]; head: Buffer[] };
    const held = [...internal.head, ...internal.tail].reduce((n, b) => n + b.length, 0);
    expect(held).toBeLessThan(350_000);
    const result = cap.finish();
    expect(result.truncated).toBe(true);
    expect(result.text.startsWith('y\ny\n')).toBe(true);
    expect(result.text.endsWith('y\ny\n')).toBe(true);
  });
});
