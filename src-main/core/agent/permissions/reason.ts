// Why a call runs, asks or is refused, as data (the rule engine's, the mode's, a hook's), and
// the one way it is said in words: the approval's `reason`, a refusal's tool result, a
// terminal's and an editor's question all read `reasonWords`; the window says it from the data
// (it drops the subject its card's title already names). Imports nothing: the window bundles it.

/** What a verdict is about: a call on its paths (as shown: a linked path names where it leads), or one simple command of a command line. */
export type ReasonSubject = { tool: string; paths: string[] } | { command: string };

/** The rule that decided: its description, else its id, else its place in the list (0-based). */
export type RuleRef = { description: string } | { id: string } | { index: number };

export type ApprovalWhy =
  /** A rule matched. */
  | { kind: 'rule'; subject: ReasonSubject; decision: 'allow' | 'ask' | 'deny'; rule: RuleRef }
  /** No rule covers a write, an edit or a command (they ask by default). */
  | { kind: 'not-allowed'; subject: ReasonSubject }
  /** No rule covers an MCP server's tool (they ask by default). */
  | { kind: 'mcp-tool-not-allowed'; subject: ReasonSubject }
  /** No rule covers a tool that changes nothing by itself. */
  | { kind: 'no-side-effects'; tool: string }
  | { kind: 'read-default' }
  /** A write to a protected path (`protects`: what kind of path, in words). */
  | { kind: 'protected-path'; path: string; protects: string }
  /** A command naming a protected path (`subject`: the part of the command line that does). */
  | { kind: 'names-protected-path'; subject?: ReasonSubject; path: string; protects: string }
  /** A form an allow rule never covers (one that writes files or runs programs). */
  | { kind: 'escalation'; subject: ReasonSubject; escalation: string }
  /** What the shell analyser cannot prove inert. */
  | { kind: 'always-asks'; reasons: string[] }
  | { kind: 'command-missing' }
  /** Each part of a command line allowed, each for its reason. */
  | { kind: 'parts'; parts: ApprovalWhy[] }
  | { kind: 'outside-sandbox' }
  /** The mode decided (`sandboxed`: the command runs inside the sandbox; `not-read-only`: plan mode and a server's tool not marked read-only). */
  | { kind: 'mode'; mode: string; detail?: 'sandboxed' | 'not-read-only' }
  /** A change to a path that always asks (what other programs run later: git's hooks and config). */
  | { kind: 'always-asks-path'; path: string; because: string }
  /** A PreToolUse hook asked, allowed, blocked or edited the call, with its words. */
  | { kind: 'hook'; outcome: 'asks' | 'allowed' | 'blocked' | 'edited'; message: string }
  /** A write inside the folder to a file that later runs or steers a program (SPEC §23 (5)): the reviewer is asked. */
  | { kind: 'sensitive-write'; path: string; what: string };

/** Before a blocked hook's words, in the reason and the tool result. */
export const HOOK_BLOCK_PREFIX = 'blocked by hook: ';

export function subjectWords(subject: ReasonSubject): string {
  if ('command' in subject) return subject.command === '' ? 'the empty command' : `\`${subject.command}\``;
  return subject.paths.length > 0 ? `\`${subject.tool}\` on ${subject.paths.join(', ')}` : `\`${subject.tool}\``;
}

export function ruleWords(rule: RuleRef): string {
  return 'description' in rule ? rule.description : 'id' in rule ? `rule "${rule.id}"` : `rule ${rule.index + 1}`;
}

/** The reason in words for the person (a terminal, an editor, the approval's `reason`) and for the model (a refusal). */
export function reasonWords(why: ApprovalWhy): string {
  switch (why.kind) {
    case 'rule': {
      const outcome = why.decision === 'allow' ? 'is allowed' : why.decision === 'deny' ? 'is denied' : 'needs approval';
      return `${subjectWords(why.subject)} ${outcome} (${ruleWords(why.rule)})`;
    }
    case 'not-allowed':
      return `${subjectWords(why.subject)} is not covered by an allow rule`;
    case 'mcp-tool-not-allowed':
      return `${subjectWords(why.subject)} is an MCP server's tool, and no allow rule covers it`;
    case 'no-side-effects':
      return `no rule covers \`${why.tool}\`, and it has no side effects of its own`;
    case 'read-default':
      return 'reading is allowed by default';
    case 'protected-path':
      return `${why.protects} (${why.path})`;
    case 'names-protected-path':
      return `${why.subject !== undefined ? subjectWords(why.subject) : 'the command'} names ${why.path}, and ${why.protects}`;
    case 'escalation':
      return `${subjectWords(why.subject)}: ${why.escalation}, which an allow rule does not cover`;
    case 'always-asks':
      return `always asks: ${why.reasons.join('; ')}`;
    case 'command-missing':
      return 'the command is missing';
    case 'parts':
      return [...new Set(why.parts.map(reasonWords))].join('; ');
    case 'outside-sandbox':
      return 'this command asks to run outside the sandbox, so it always needs approval';
    case 'mode':
      return why.detail === 'sandboxed' ? `${why.mode} mode: runs inside the sandbox` : why.detail === 'not-read-only' ? `${why.mode} mode: the server does not call this tool read-only` : `${why.mode} mode`;
    case 'always-asks-path':
      return `changes to ${why.path} always ask: ${why.because}`;
    case 'sensitive-write':
      return `${why.path} is ${why.what}: it later runs or steers a program outside the sandbox, so the reviewer is asked`;
    case 'hook':
      return why.outcome === 'asks'
        ? `a hook asks: ${why.message}`
        : why.outcome === 'allowed'
          ? `a hook allowed it: ${why.message}`
          : why.outcome === 'blocked'
            ? `${HOOK_BLOCK_PREFIX}${why.message}`
            : 'edited by hook';
  }
}
