// One conformance suite that every Backend implementation runs (like the Deep Agents
// standard tests): the same cases, the same expected data, for each backend.

import { describe } from 'vitest';
import type { ConformanceHarness } from './context.test-support';
import { setUpContext } from './context.test-support';
import { fileCases } from './file-cases.test-support';
import { pathAndTransferCases } from './path-and-transfer-cases.test-support';
import { searchCases } from './search-cases.test-support';

export type { ConformanceCapabilities, ConformanceHarness, ConformanceInstance } from './context.test-support';

/**
 * Registers the conformance cases for one backend. `harness.create()` is called for every
 * case and must return an empty backend; all files live under `harness.root` (default `/`).
 */
export function describeBackendConformance(name: string, harness: ConformanceHarness): void {
  const root = harness.root ?? '/';
  describe(`${name} conformance (root ${root})`, () => {
    const ctx = setUpContext(harness);
    fileCases(ctx);
    searchCases(ctx);
    pathAndTransferCases(ctx);
  });
}
