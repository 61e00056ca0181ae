// `deepdesk run --print-request [PROMPT]` (SPEC §20): the request the run would send first —
// every part of the system prompt by what added it, every tool offered, the prompt — each with
// its tokens as the context meter counts them, and the total. Built in this process by the
// run's own assembly (headless-run.ts), without calling the model: no key is needed. What a
// folder, a skill or a server wrote is content the person asked for (writeContent).

import { databasePath } from '../app/base/data-dir';
import { packageVersion } from '../app/base/package-version';
import { previewHeadlessRequest, type HeadlessRequestPreview, type HeadlessRunRequest } from '../app/session/headless-run';
import { holdDataFolderSecrets } from '../app/settings/data-folder-secrets';
import { contentText } from '../core/agent/model-view';
import type { RequestPartCost } from '../core/agent/request-budget';
import { openDatabase } from '../core/backends/store/store';
import { NO_MODEL } from '../core/models/create-model';
import type { ToolSpec } from '../core/models/types';
import { terminalSafe, terminalSafeJson } from '../core/text/terminal-safe';
import type { CommandIo } from './command-io';
import { table } from './table';
import { writeContent } from './terminal-output';
import { badRequestAsUsage } from './usage';

export async function printRequestCommand(request: HeadlessRunRequest, options: { dataDir: string; json: boolean; io: CommandIo }): Promise<number> {
  const { dataDir, io } = options;
  const db = openDatabase(databasePath(dataDir));
  const secrets = holdDataFolderSecrets(dataDir);
  try {
    const say = (line: string): void => void io.stderr.write(`deepdesk: ${terminalSafe(line, { singleLine: true })}\n`);
    const shown = await previewHeadlessRequest(request, { dataDir, db, version: packageVersion(), secrets: secrets.store }, say).catch((err: unknown) => badRequestAsUsage(() => {
      throw err;
    }));
    if (options.json) io.stdout.write(`${terminalSafeJson(asJson(shown), 2)}\n`);
    else writeContent(io.stdout, asText(shown));
    return 0;
  } finally {
    secrets.release();
    db.close();
  }
}

/** Each part with what is sent for it, in the order it is sent. */
function sentParts(shown: HeadlessRequestPreview): Array<RequestPartCost & { text: string }> {
  const { preview, cost } = shown;
  const texts = [
    ...preview.systemParts.map((part) => part.text),
    ...preview.request.tools.map(toolText),
    ...(preview.request.messages.length > 0 ? [preview.request.messages.map((m) => contentText(m.content)).join('\n\n')] : []),
  ];
  return cost.parts.map((part, i) => ({ ...part, text: texts[i] ?? '' }));
}

/** A tool as the model is told of it: its description and its parameters' JSON Schema. */
function toolText(tool: ToolSpec): string {
  return `${tool.description}\n${JSON.stringify(tool.parameters)}`;
}

function modelLine(shown: HeadlessRequestPreview): string {
  const model = shown.model === NO_MODEL ? 'no model chosen yet' : shown.model;
  return `model: ${model}, context window ${shown.contextWindow.toLocaleString('en-US')} tokens (not called)`;
}

function asText(shown: HeadlessRequestPreview): string {
  const parts = sentParts(shown);
  const blocks = parts.map((part) => `── ${part.kind} · ${part.name} · ${part.tokens.toLocaleString('en-US')} tokens\n${part.text}\n`);
  const rows = [
    ['part', '', 'tokens'],
    ...parts.map((part) => [part.kind, part.name, part.tokens.toLocaleString('en-US')]),
    ['base', 'system prompt and tools', shown.cost.base.toLocaleString('en-US')],
    ['total', '', shown.cost.total.toLocaleString('en-US')],
  ];
  return `${blocks.join('\n')}\n${modelLine(shown)}; tokens counted with o200k_base, as the context meter counts them\n\n${table(rows)}`;
}

function asJson(shown: HeadlessRequestPreview): unknown {
  return {
    model: shown.model,
    contextWindow: shown.contextWindow,
    parts: sentParts(shown),
    base: shown.cost.base,
    total: shown.cost.total,
  };
}
