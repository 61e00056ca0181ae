// The containment conformance suite (suite.ts) on another agent's door over ACP that asks the
// client to run things: the terminals it asks for (paths/acp-agent.test-support.ts). Its own
// process and file requests are acp-own-process.conformance.test.ts (a file each: they run side by side).
import { acpAgentPath } from './paths/acp-agent.test-support';
import { runContainmentConformance } from './suite';

runContainmentConformance(acpAgentPath('terminal'));
