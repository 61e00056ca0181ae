// The containment conformance suite (suite.ts) on another agent's own process over ACP and the
// file requests it makes of the client after each script (fs/*: paths/acp-agent.test-support.ts).
// Its terminals are acp-terminal.conformance.test.ts (a file each: they run side by side).
import { acpAgentPath } from './paths/acp-agent.test-support';
import { runContainmentConformance } from './suite';

runContainmentConformance(acpAgentPath('own process'));
