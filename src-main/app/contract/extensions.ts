// The contract's shapes for skills and hooks (SPEC §11): what Settings lists, with each one's
// source file, and turning each off. Renderer-safe: zod only.
import { z } from 'zod';

export const skillDtoSchema = z.object({
  name: z.string(),
  description: z.string(),
  source: z.enum(['user', 'project']),
  /** The SKILL.md (real path). */
  file: z.string(),
  /** `disable-model-invocation`: only the person runs it, as `/name`. */
  onlyAsCommand: z.boolean(),
  enabled: z.boolean(),
});

export const hookDtoSchema = z.object({
  id: z.string(),
  event: z.string(),
  matcher: z.string().optional(),
  command: z.string(),
  source: z.enum(['user', 'project']),
  file: z.string(),
  enabled: z.boolean(),
});

export const skillsListSchema = z.object({
  skills: z.array(skillDtoSchema),
  /** Skills that could not be loaded, and why (a line naming the file). */
  problems: z.array(z.string()),
  /** What the prompt's skill list had to leave out or shorten (its budget), one line; empty when nothing. */
  budgetNote: z.string(),
});
export type SkillsListDto = z.infer<typeof skillsListSchema>;

export const hooksListSchema = z.object({ hooks: z.array(hookDtoSchema), problems: z.array(z.string()) });
export type HooksListDto = z.infer<typeof hooksListSchema>;

/** A subagent defined in a Markdown file (Claude Code's format): read-only in Settings, its file is the place to change it. */
export const fileAgentDtoSchema = z.object({
  name: z.string(),
  description: z.string(),
  tools: z.array(z.string()).optional(),
  model: z.string().optional(),
  source: z.enum(['user', 'project', 'plugin']),
  file: z.string(),
  /** Hidden by a subagent of the same name in Settings. */
  shadowed: z.boolean(),
  note: z.string().optional(),
});

export const agentsListSchema = z.object({ agents: z.array(fileAgentDtoSchema), problems: z.array(z.string()) });
export type AgentsListDto = z.infer<typeof agentsListSchema>;

/** The permission rules of Claude Code's settings files in force: read-only in Settings, the file is the place to change them. */
export const fileRulesSchema = z.object({
  rules: z.array(z.object({ decision: z.enum(['allow', 'ask', 'deny']), rule: z.string(), origin: z.string() })),
  problems: z.array(z.string()),
});

export const extensionMethods = {
  'rules.fromFiles': { params: z.object({}).strict(), result: fileRulesSchema },
  'agents.list': { params: z.object({}).strict(), result: agentsListSchema },
  'skills.list': { params: z.object({}).strict(), result: skillsListSchema },
  'skills.setEnabled': { params: z.object({ name: z.string().min(1), enabled: z.boolean() }), result: skillsListSchema },
  'hooks.list': { params: z.object({}).strict(), result: hooksListSchema },
  'hooks.setEnabled': { params: z.object({ id: z.string().min(1), enabled: z.boolean() }), result: hooksListSchema },
} as const;

export const extensionEvents = {
  /** Skills or hooks were found, changed, turned on or off. */
  'extensions.changed': z.object({}),
} as const;
