// The containment conformance suite (suite.ts) on the server execution path (paths/server.ts).
import { longLivedSandboxedServer } from './paths/server';
import { runContainmentConformance } from './suite';

runContainmentConformance(longLivedSandboxedServer());
