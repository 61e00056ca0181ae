import { describe, expect, it } from 'vitest';
import { main } from './main';

describe('cli', () => {
  it('exits 2 on an unknown command', async () => {
    expect(await main(['nope'])).toBe(2);
  });
});
