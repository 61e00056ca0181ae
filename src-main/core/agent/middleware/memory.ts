// Memory (SPEC §4): the folder's AGENTS.md (where there is none, its CLAUDE.md, as Claude
// Code users have it) and /memories/AGENTS.md go into the system prompt, each a part of its
// own, after guidance on keeping /memories/ useful. Files are re-read only when they change.

import type { Backend } from '../../backends/protocol';
import type { Middleware, SystemPart } from '../middleware';

const MAX_MEMORY_CHARS = 40_000;

const GUIDANCE = `## Memory
Only files under /memories/ persist across conversations. At the start of a task check them for notes that apply; save there what will help later (the person's preferences and corrections, project conventions, commands that work) as short notes, one topic a file, updated rather than duplicated. /memories/AGENTS.md is always shown to you: keep it a short index. Never store secrets.`;

interface CachedFile {
  version: string;
  text: string | null;
}

export function memoryMiddleware(): Middleware {
  const cache = new Map<string, CachedFile>();
  const load = async (backend: Backend, path: string): Promise<string | null> => {
    const stat = await backend.stat(path);
    if (stat.error !== undefined || stat.version === undefined || stat.info?.isDir) return null;
    const hit = cache.get(path);
    if (hit && hit.version === stat.version) return hit.text;
    const raw = await backend.readRaw(path);
    let text = raw.data ? Buffer.from(raw.data).toString('utf8') : null;
    if (text !== null && text.length > MAX_MEMORY_CHARS) text = text.slice(0, MAX_MEMORY_CHARS) + `\n[… cut at ${MAX_MEMORY_CHARS} characters; read ${path} for the rest]`;
    cache.set(path, { version: stat.version, text });
    return text;
  };
  return {
    name: 'memory',
    async systemPrompt(ctx) {
      const [agents, claude, personal] = await Promise.all([load(ctx.backend, '/AGENTS.md'), load(ctx.backend, '/CLAUDE.md'), load(ctx.backend, '/memories/AGENTS.md')]);
      const [projectFile, project] = agents !== null ? ['/AGENTS.md', agents] : ['/CLAUDE.md', claude];
      const parts: SystemPart[] = [{ name: 'memory', text: GUIDANCE }];
      if (project && project.trim() !== '') parts.push({ name: `memory file ${projectFile}`, text: `## Project instructions (${projectFile})\n${project.trim()}` });
      if (personal && personal.trim() !== '') parts.push({ name: 'memory file /memories/AGENTS.md', text: `## Your memory index (/memories/AGENTS.md)\n${personal.trim()}` });
      return parts;
    },
  };
}
