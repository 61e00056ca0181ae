// The containment conformance suite (suite.ts) on another agent's own process over ACP
// (paths/acp-agent.test-support.ts). Its terminals are acp-terminal.conformance.test.ts.
import { acpAgentPath } from './paths/acp-agent.test-support';
import { runContainmentConformance } from './suite';

runContainmentConformance(acpAgentPath('own process'));
