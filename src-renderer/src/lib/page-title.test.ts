import { describe, expect, it } from 'vitest';
import { openFolderTitle, pageTitle } from './page-title';

describe('pageTitle', () => {
  it('names the folder, and counts first the threads that need the person', () => {
    expect(pageTitle('calc', 0)).toBe('calc — Deepdesk');
    expect(pageTitle('calc', 1)).toBe('(1 needs you) calc — Deepdesk');
    expect(pageTitle('calc', 2)).toBe('(2 need you) calc — Deepdesk');
    expect(pageTitle(undefined, 3)).toBe('(3 need you) Deepdesk');
    expect(pageTitle('', 0)).toBe('Deepdesk');
  });

  it('counts them on the Open folder screen too', () => {
    expect(openFolderTitle(0)).toBe('Open a folder — Deepdesk');
    expect(openFolderTitle(1)).toBe('(1 needs you) Open a folder — Deepdesk');
  });
});
