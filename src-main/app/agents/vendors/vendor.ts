// What one vendor's agent is to Deepdesk (SPEC §22), as Zed keeps its `agent_quirks/`: each
// vendor's module says how it is installed, started in its most-asking setting and pointed at the
// metering proxy, which login entries of the person's home it is given (its allow-rules left out),
// how its `session/request_permission` names the command and the paths, and which models it calls
// by default. Nothing here names a vendor's agent; `catalog.ts` chooses a module by id.
import { closeSync, constants, openSync, readFileSync } from 'node:fs';
import type { ToolCallUpdate } from '@agentclientprotocol/sdk';
import { commandLine } from '../../../core/acp-client/permission-map';
import { inParent, linkedParent, removeTreeAt, replaceAt, unlinkAt } from '../../../core/fs/no-follow';

/** The fields of an ACP tool call a permission request is read from (merged with what the earlier updates said of it). */
export type RequestToolCall = Pick<ToolCallUpdate, 'kind' | 'title' | 'rawInput' | 'locations'>;

/** What a request names: the command it would run (an `execute`), and the paths it would touch, as the agent gave them. */
export interface RequestedOperation {
  command?: string;
  paths: string[];
}

/** What holds for a vendor's agent however it is started (a catalog row, or a command the person added). */
export interface AgentVendor {
  /** Its id: `run --agent NAME`, its private home's folder, the ledger rows' provider. */
  name: string;
  label: string;
  /** Login entries of the person's home given to it as a private copy (folders or files, relative to the home). */
  loginEntries: readonly string[];
  /** Its private home before each start: the person's saved allow-rules of this agent left out of the copy (they do not pre-approve what it does under Deepdesk). */
  withoutAllowRules(home: string): void;
  /** Variables of Deepdesk's environment it is never given (they switch it out of its most-asking setting). */
  droppedEnv?: readonly string[];
  /** How its `session/request_permission` names the command and the paths. */
  describeRequest(call: RequestToolCall): RequestedOperation;
  /** Its configuration in a project folder (`/.codex`): what steers its next run there, so a write to it is sensitive (SPEC §23 (5)). */
  configPaths?: readonly string[];
}

/** The model endpoint an agent calls, which the metering proxy stands for. */
export interface ModelEndpoint {
  /** The real endpoint the proxy passes calls to. */
  upstream: string;
  /** Where the person's key goes upstream, and the variable Deepdesk's key is read from. */
  keyHeader: string;
  keyVariable: string;
  /** The person's variable of the provider's base URL: where the proxy sends its calls when set (default `upstream`). */
  baseUrlVariable: string;
  /** The provider prefix of the price table (`anthropic:claude-…`). */
  priceProvider: 'anthropic' | 'openai' | 'google';
}

export const ANTHROPIC: ModelEndpoint = { upstream: 'https://api.anthropic.com', keyHeader: 'x-api-key', keyVariable: 'ANTHROPIC_API_KEY', baseUrlVariable: 'ANTHROPIC_BASE_URL', priceProvider: 'anthropic' };
export const OPENAI: ModelEndpoint = { upstream: 'https://api.openai.com', keyHeader: 'authorization', keyVariable: 'OPENAI_API_KEY', baseUrlVariable: 'OPENAI_BASE_URL', priceProvider: 'openai' };
export const GEMINI: ModelEndpoint = { upstream: 'https://generativelanguage.googleapis.com', keyHeader: 'x-goog-api-key', keyVariable: 'GEMINI_API_KEY', baseUrlVariable: 'GOOGLE_GEMINI_BASE_URL', priceProvider: 'google' };

/** A vendor's agent in the catalog: installed from npm on the person's confirmation, pinned by version. */
export interface KnownAgent extends AgentVendor, ModelEndpoint {
  packageName: string;
  version: string;
  /** What is started, inside the installed package: a script run with Node, or (`native`) a program of its own. */
  script: string;
  native?: boolean;
  args?: readonly string[];
  /** The models it calls when the person chose none (the price table prices each: issue 79's Codex). */
  defaultModels: readonly string[];
  /** The tool git-ai's notes name it by (SPEC §24: `agent_id.tool`), when not its name. */
  gitAiTool?: string;
  /**
   * Where its own sign-in sends its calls, when not to the model endpoint the proxy stands for
   * (then it cannot be metered, and a run without the person's key is refused); none when its
   * sign-in's token goes to that same endpoint through the proxy.
   */
  signInElsewhere?: string;
  /**
   * Its variables: its model at `base` (the proxy's port in its sandbox), quiet, in its most-asking
   * setting. `personKey`: the proxy puts the person's key on every call, so it is given a
   * placeholder; without one, an agent that can use its own sign-in is given none (which would shadow it).
   */
  env(base: string, personKey: boolean): Record<string, string>;
  /** Its own configuration written into its private home before each start, where it reads its model's endpoint from one (`base`: the proxy's URL in its sandbox). */
  configureHome?(home: string, base: string): void;
  /** The model a request to its endpoint names (default: its JSON body's `model`). */
  requestModel?(path: string, body: Buffer): string;
}

/** The key an agent is given when the proxy puts the person's on its calls. */
export const PLACEHOLDER_KEY = 'deepdesk-metered';

/** A JSON object, when the value is one. */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * A request's reader from where the vendor puts things: the command in one of `commandKeys` of
 * `rawInput` (a string, or an argv whose `bash -lc SCRIPT` is the script), else the title; the
 * paths in `locations` and in `pathKeys` of `rawInput`. The command is read for an `execute` only.
 */
export function requestShape(commandKeys: readonly string[], pathKeys: readonly string[]): AgentVendor['describeRequest'] {
  return (call) => {
    const input = asObject(call.rawInput) ?? {};
    const paths = [...new Set([...(call.locations ?? []).map((l) => l.path), ...pathKeys.map((k) => input[k])].filter((p): p is string => typeof p === 'string'))];
    if (call.kind !== 'execute') return { paths };
    const named = commandKeys.map((k) => input[k]).find((c) => c != null);
    if (Array.isArray(named) && named.every((w) => typeof w === 'string')) return { command: commandLine(named as string[]), paths };
    return { command: typeof named === 'string' ? named : (call.title ?? ''), paths };
  };
}

// What Deepdesk changes in an agent's private home it changes outside the sandbox, in entries
// the agent made: never through a link (one on the way is removed, what it points at untouched),
// so no edit lands in the person's own files.

/**
 * Edits a JSON object file of the private home (`rel` in `home`; the person's own file is never
 * touched: this is the copy). One that is not a JSON object (comments, which some agents read) is
 * removed: what it might allow is not carried over.
 */
export function editJsonFile(home: string, rel: string, edit: (json: Record<string, unknown>) => void): void {
  let json: Record<string, unknown> | undefined;
  let fd: number | undefined;
  try {
    fd = inParent(home, rel, {}, (at) => openSync(at, constants.O_RDONLY | constants.O_NOFOLLOW));
    json = asObject(JSON.parse(readFileSync(fd, 'utf8')));
  } catch {
    // Missing, not a file, not JSON, or a link on the way: nothing is kept.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
  if (json === undefined) return removeInHome(home, rel);
  edit(json);
  writeInHome(home, rel, JSON.stringify(json, null, 2));
}

/** Removes `rel` of the private home, a folder with all in it. */
export function removeInHome(home: string, rel: string): void {
  for (let linked = linkedParent(home, rel); linked !== null; linked = linkedParent(home, rel)) unlinkAt(home, linked);
  removeTreeAt(home, rel);
}

/** Writes `rel` of the private home (what was there goes, a link or a folder included). */
export function writeInHome(home: string, rel: string, text: string): void {
  removeInHome(home, rel);
  // From node:crypto itself, when needed: `run --agent` reads this module to check an install, and
  // node:crypto's ESM face (Web Crypto with it) costs that check a third of its time.
  replaceAt(home, rel, 'f', Buffer.from(text), 0o600, false, process.getBuiltinModule('node:crypto').randomBytes(6).toString('hex'));
}
