// Memory (SPEC §4, §25): the folder's AGENTS.md (where there is none, its CLAUDE.md, as Claude
// Code users have it), then the project's /memories/AGENTS.md and every project's
// /memories/global/AGENTS.md go into the system prompt, each a part of its own, after
// guidance on keeping /memories/ useful. A stale memory says so at its top. Each memory part
// names the memory and version it carries, for what the request used. Files are re-read only
// when they change.

import type { Backend } from '../../backends/protocol';
import type { Middleware, SystemPart } from '../middleware';

const MAX_MEMORY_CHARS = 40_000;

const GUIDANCE = `## Memory
Only files under /memories/ persist across conversations: /memories/ holds this project's memories, /memories/global/ those every project shares. At the start of a task check them for notes that apply; save there what will help later (the person's preferences and corrections, project conventions, commands that work) as short notes, one topic a file, updated rather than duplicated; keep what is true only of this project out of global/. /memories/AGENTS.md and /memories/global/AGENTS.md are always shown to you: keep them short indexes. Never store secrets. A memory you write after reading files, command output or other content that did not come from the person waits for the person's review.`;

interface LoadedFile {
  text: string | null;
  version?: number;
  mark?: string;
}

interface CachedFile extends LoadedFile {
  key: string;
}

const MEMORY_FILES = [
  { path: '/memories/AGENTS.md', title: 'Your memory index for this project' },
  { path: '/memories/global/AGENTS.md', title: 'Your memory index for every project' },
] as const;

export function memoryMiddleware(): Middleware {
  const cache = new Map<string, CachedFile>();
  const load = async (backend: Backend, path: string): Promise<LoadedFile> => {
    const stat = await backend.stat(path);
    if (stat.error !== undefined || stat.version === undefined || stat.info?.isDir) return { text: null };
    const key = `${stat.version}\n${stat.info?.mark ?? ''}`;
    const hit = cache.get(path);
    if (hit && hit.key === key) return hit;
    const raw = await backend.readRaw(path);
    let text = raw.data ? Buffer.from(raw.data).toString('utf8') : null;
    if (text !== null && text.length > MAX_MEMORY_CHARS) text = text.slice(0, MAX_MEMORY_CHARS) + `\n[… cut at ${MAX_MEMORY_CHARS} characters; read ${path} for the rest]`;
    const loaded: CachedFile = { key, text, ...(stat.memoryVersion !== undefined ? { version: stat.memoryVersion } : {}), ...(stat.info?.mark !== undefined ? { mark: stat.info.mark } : {}) };
    cache.set(path, loaded);
    return loaded;
  };
  return {
    name: 'memory',
    async systemPrompt(ctx) {
      const [agents, claude, ...memories] = await Promise.all([load(ctx.backend, '/AGENTS.md'), load(ctx.backend, '/CLAUDE.md'), ...MEMORY_FILES.map((f) => load(ctx.backend, f.path))]);
      const [projectFile, project] = agents.text !== null ? ['/AGENTS.md', agents.text] : ['/CLAUDE.md', claude.text];
      const parts: SystemPart[] = [{ name: 'memory', text: GUIDANCE }];
      if (project && project.trim() !== '') parts.push({ name: `memory file ${projectFile}`, text: `## Project instructions (${projectFile})\n${project.trim()}` });
      MEMORY_FILES.forEach((file, i) => {
        const m = memories[i]!;
        if (m.text === null || m.text.trim() === '') return;
        const stale = m.mark?.startsWith('[stale:') ? `${m.mark}\n` : '';
        parts.push({
          name: `memory file ${file.path}`,
          text: `## ${file.title} (${file.path})\n${stale}${m.text.trim()}`,
          ...(m.version !== undefined ? { memory: { path: file.path, version: m.version } } : {}),
        });
      });
      return parts;
    },
  };
}
