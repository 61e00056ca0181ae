// The containment conformance suite (suite.ts) on a goal's verify step, which the host runs
// itself through the thread's command path (paths/goal-verify.test-support.ts).
import { goalVerifyPath } from './paths/goal-verify.test-support';
import { runContainmentConformance } from './suite';

runContainmentConformance(goalVerifyPath());
