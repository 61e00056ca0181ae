// The containment conformance suite (suite.ts) on another agent's two doors over ACP
// (paths/acp-agent.test-support.ts): its own process, and the terminals it asks for.
import { acpAgentPath } from './paths/acp-agent.test-support';
import { runContainmentConformance } from './suite';

runContainmentConformance(acpAgentPath('terminal'));
runContainmentConformance(acpAgentPath('own process'));
