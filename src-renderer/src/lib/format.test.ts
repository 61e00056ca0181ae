import { describe, it, expect } from 'vitest';
import { capitalized, clip, contextFraction, formatBytes, formatCost, formatRelativeTime, formatShortAge, formatTokens } from './format';

describe('formatters', () => {
  it('formats token counts', () => {
    expect(formatTokens(0)).toBe('0');
    expect(formatTokens(950)).toBe('950');
    expect(formatTokens(1200)).toBe('1.2k');
    expect(formatTokens(12_345)).toBe('12k');
    expect(formatTokens(200_000)).toBe('200k');
    expect(formatTokens(1_000_000)).toBe('1M');
    expect(formatTokens(1_250_000)).toBe('1.25M');
    expect(formatTokens(Number.NaN)).toBe('0');
  });

  it('formats costs, or nothing when unknown', () => {
    expect(formatCost(undefined)).toBeNull();
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(0.00421)).toBe('$0.0042');
    expect(formatCost(0.0123)).toBe('$0.0123');
    expect(formatCost(0.012)).toBe('$0.012');
    expect(formatCost(0.5)).toBe('$0.50');
    expect(formatCost(0.00001)).toBe('< $0.0001');
    expect(formatCost(1.5)).toBe('$1.50');
    expect(formatCost(1234.4)).toBe('$1,234');
  });

  it('formats byte sizes', () => {
    expect(formatBytes(12)).toBe('12 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
  });

  it('computes the context fraction safely', () => {
    expect(contextFraction(50, 200)).toBe(0.25);
    expect(contextFraction(50, 0)).toBe(0);
    expect(contextFraction(500, 200)).toBe(1);
  });

  it('formats relative times', () => {
    const now = Date.parse('2025-01-10T12:00:00Z');
    expect(formatRelativeTime('2025-01-10T11:59:50Z', now)).toBe('just now');
    expect(formatRelativeTime('2025-01-10T11:50:00Z', now)).toBe('10 min ago');
    expect(formatRelativeTime('2025-01-10T09:00:00Z', now)).toBe('3 h ago');
    expect(formatRelativeTime('2024-12-01T00:00:00Z', now)).toBe('2024-12-01');
    expect(formatRelativeTime('garbage', now)).toBe('');
  });

  it('clips long text', () => {
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('abc', 4)).toBe('abc');
  });
});

describe('capitalized', () => {
  it('starts the text with a capital and keeps the rest', () => {
    expect(capitalized('folder not found: /x')).toBe('Folder not found: /x');
    expect(capitalized('')).toBe('');
    expect(capitalized('éte')).toBe('Éte');
  });
});

describe('formatShortAge', () => {
  it('says how long ago in a few characters', () => {
    const now = Date.parse('2025-01-10T12:00:00Z');
    expect(formatShortAge('2025-01-10T11:59:50Z', now)).toBe('now');
    expect(formatShortAge('2025-01-10T11:50:00Z', now)).toBe('10m');
    expect(formatShortAge('2025-01-10T09:00:00Z', now)).toBe('3h');
    expect(formatShortAge('2025-01-08T12:00:00Z', now)).toBe('2d');
    expect(formatShortAge('2024-12-24T12:00:00Z', now)).toBe('Dec 24');
    expect(formatShortAge(undefined, now)).toBe('');
  });
});
