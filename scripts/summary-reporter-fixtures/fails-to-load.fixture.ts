// A test file whose import throws: vitest collects no test from it.
import 'vitest';

throw new Error('this file cannot be loaded');
