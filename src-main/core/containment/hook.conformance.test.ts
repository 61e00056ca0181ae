// The containment conformance suite (suite.ts) on the hook execution path (paths/hook.ts).
import { hookPath } from './paths/hook';
import { runContainmentConformance } from './suite';

runContainmentConformance(hookPath());
