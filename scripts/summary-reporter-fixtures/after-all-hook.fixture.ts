import { afterAll, it } from 'vitest';

afterAll(() => {
  throw new Error('afterAll failed');
});
it('passes before the hook fails', () => {});
