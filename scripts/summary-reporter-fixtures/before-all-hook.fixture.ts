import { beforeAll, describe, it } from 'vitest';

describe('a suite whose set-up throws', () => {
  beforeAll(() => {
    throw new Error('beforeAll failed');
  });
  it('does not run', () => {});
});
