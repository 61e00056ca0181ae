// Skills (SPEC §11): folders holding a SKILL.md whose front matter names and describes them.

export type SkillSource = 'user' | 'project';

export interface Skill {
  /** The front matter's `name`, equal to the folder's name. */
  name: string;
  description: string;
  source: SkillSource;
  /** Real path of the SKILL.md. */
  file: string;
  /** Real path of the skill's folder. */
  dir: string;
  /**
   * Where the agent reads the SKILL.md: a project skill inside the folder at its own path
   * (`/.claude/skills/pdf/SKILL.md`), any other under the read-only mount (`/skills/pdf/SKILL.md`).
   */
  virtualPath: string;
  /** `disable-model-invocation: true`: not listed in the prompt; the person runs it as `/name`. */
  disableModelInvocation: boolean;
  /** Trust digest (project skills): sha256 of the SKILL.md as read. */
  digest: string;
  /** The markdown after the front matter, read again from disk. */
  body(): Promise<string>;
}

/** A skill that could not be used, or a folder that could not be read: never dropped silently. */
export interface SkillProblem {
  file: string;
  message: string;
}
