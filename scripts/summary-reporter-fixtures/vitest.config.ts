// Run by summary-reporter.test.ts in a child vitest: files that fail in every way a run can.
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    root: import.meta.dirname,
    include: ['*.fixture.ts'],
    reporters: [join(import.meta.dirname, '..', 'summary-reporter.ts')],
  },
});
