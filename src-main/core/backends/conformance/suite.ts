// One conformance suite that every Backend implementation runs (like the Deep Agents
// standard tests): the same cases, the same expected data, for each backend.

import { describe } from 'vitest';
import type { ConformanceHarness } from './context';
import { setUpContext } from './context';
import { fileCases } from './file-cases';
import { pathAndTransferCases } from './path-and-transfer-cases';
import { searchCases } from './search-cases';

export type { ConformanceCapabilities, ConformanceHarness, ConformanceInstance } from './context';

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
