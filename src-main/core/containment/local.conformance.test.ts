// The containment conformance suite (suite.ts) on the local execution path (paths/local.ts).
import { localSandboxedCommand } from './paths/local';
import { runContainmentConformance } from './suite';

runContainmentConformance(localSandboxedCommand());
