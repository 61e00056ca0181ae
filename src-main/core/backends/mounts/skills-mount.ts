/** Where the skills are mounted in the agent's file tree. */
export const SKILLS_MOUNT = '/skills/';
