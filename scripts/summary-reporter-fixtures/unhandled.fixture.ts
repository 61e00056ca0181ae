import { it } from 'vitest';

it('passes but leaves a rejection nobody handles', () => {
  void Promise.reject(new Error('unhandled rejection'));
});
