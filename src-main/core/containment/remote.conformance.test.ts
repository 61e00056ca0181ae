// The containment conformance suite (suite.ts) on the remote execution path (paths/remote.ts).
import { remoteSandboxedCommand } from './paths/remote';
import { runContainmentConformance } from './suite';

runContainmentConformance(remoteSandboxedCommand());
