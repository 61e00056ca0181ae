import { describe, expect, it } from 'vitest';
import { pageTitle } from './page-title';

describe('pageTitle', () => {
  it('names the folder, and says first when a thread waits for an approval', () => {
    expect(pageTitle('calc', false)).toBe('calc — Deepdesk');
    expect(pageTitle('calc', true)).toBe('(waiting for approval) calc — Deepdesk');
    expect(pageTitle(undefined, true)).toBe('(waiting for approval) Deepdesk');
    expect(pageTitle('', false)).toBe('Deepdesk');
  });
});
