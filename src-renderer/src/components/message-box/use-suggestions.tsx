// What the message box suggests while the person types: files (then MCP resources) after `@`,
// commands after a `/` that starts the message. One list at a time, with one active row.

import { useEffect, useId, useState, type RefObject } from 'react';
import { applyMention, findMention, type Mention } from '../../lib/mention';
import { whileCurrent } from '../../lib/while-current';
import { useApi } from '../../state/use-api';
import { CommandList, MentionList, type CommandInfo } from '../MentionList';
import { suggestionOptionId } from '../SuggestionList';

interface Suggestions {
  /** The list shown, and the box's attributes as the combobox that controls it. */
  list: React.JSX.Element | null;
  inputProps: React.TextareaHTMLAttributes<HTMLTextAreaElement>;
  /** Follows the text and the caret as they change. */
  update(value: string, caret: number): void;
  closeMention(): void;
  close(): void;
  /** A key for the list shown (arrows move, Enter or Tab chooses, Esc closes): true if it took it. */
  onKey(event: React.KeyboardEvent): boolean;
}

/** `put`: puts a text in the box, with the caret at `caret`. */
export function useSuggestions(text: string, textarea: RefObject<HTMLTextAreaElement | null>, put: (text: string, caret: number) => void): Suggestions {
  const api = useApi();
  const listId = useId().replace(/:/g, '');
  const [mention, setMention] = useState<Mention | null>(null);
  const [options, setOptions] = useState<string[]>([]);
  const [active, setActive] = useState(0);
  const [searching, setSearching] = useState(false);
  /** The command being typed: what follows a `/` that starts the message, while the caret is in that word. */
  const [slash, setSlash] = useState<string | null>(null);
  const [commands, setCommands] = useState<CommandInfo[]>([]);

  // Search files for the mention being typed (debounced; late answers dropped).
  const query = mention?.query;
  useEffect(() => {
    if (query === undefined) return undefined;
    let drop = (): void => undefined;
    setSearching(true);
    const found = (paths: string[]): void => {
      setOptions(paths);
      setSearching(false);
    };
    const timer = setTimeout(() => {
      // Files first, then the MCP servers' resources (`server:URI`, attached when sent).
      const asked = Promise.all([api.call('files.search', { query, limit: 20 }), api.call('mcp.resources', { query }).catch(() => [])]);
      drop = whileCurrent(asked, ([paths, resources]) => {
        found([...paths, ...resources.slice(0, 10).map((r) => `${r.server}:${r.uri}`)]);
        setActive(0);
      }, () => found([]));
    }, 120);
    return () => {
      clearTimeout(timer);
      drop();
    };
  }, [api, query]);

  // The commands there are now (skills and MCP prompts come and go): asked for each time the list opens.
  const slashOpen = slash !== null;
  useEffect(() => {
    if (!slashOpen) return undefined;
    return whileCurrent(api.safe('commands.list', {}), (list) => list && setCommands(list));
  }, [api, slashOpen]);
  // A plugin's command matches on its own name too (`/chang` offers `/release-kit:changelog`).
  const commandOptions = slash === null ? [] : commands.filter((c) => [c.name, c.shortName].some((n) => n?.toLowerCase().startsWith(slash.toLowerCase())));
  useEffect(() => setActive(0), [slash]);

  const chooseCommand = (name: string): void => {
    if (!textarea.current) return;
    put(`/${name} ${text.replace(/^\/\S*/, '').replace(/^ /, '')}`, name.length + 2);
    setSlash(null);
  };
  const choose = (path: string): void => {
    const el = textarea.current;
    if (!mention || !el) return;
    const next = applyMention(text, mention, el.selectionStart, path);
    put(next.text, next.caret);
    setMention(null);
    setOptions([]);
  };

  const showMentions = mention !== null;
  const showCommands = !showMentions && commandOptions.length > 0;
  const count = showMentions ? options.length : commandOptions.length;
  const onKey = (event: React.KeyboardEvent): boolean => {
    const { key, shiftKey } = event;
    const command = showCommands ? commandOptions[active] : undefined;
    // Enter on a command typed in full sends it; otherwise Enter (or Tab) completes it.
    const typedInFull = [command?.name, command?.shortName].some((n) => n !== undefined && text.trim() === `/${n}`);
    const act =
      (key === 'ArrowDown' || key === 'ArrowUp') && (showMentions || showCommands) && count > 0
        ? () => setActive((i) => (i + (key === 'ArrowDown' ? 1 : count - 1)) % count)
        : (key === 'Enter' || key === 'Tab') && !shiftKey && showMentions && options[active] !== undefined
          ? () => choose(options[active]!)
          : (key === 'Tab' || (key === 'Enter' && !typedInFull)) && !shiftKey && command !== undefined
            ? () => chooseCommand(command.name)
            : key === 'Escape' && (showMentions || showCommands)
              ? () => (showMentions ? setMention(null) : setSlash(null))
              : null;
    if (act === null) return false;
    event.preventDefault();
    act();
    return true;
  };

  const shown = (showMentions && options[active] !== undefined) || (showCommands && commandOptions[active] !== undefined);
  return {
    list: showMentions ? (
      <MentionList id={listId} options={options} active={active} loading={searching} onChoose={choose} onHover={setActive} />
    ) : showCommands ? (
      <CommandList id={listId} commands={commandOptions} active={active} onChoose={chooseCommand} onHover={setActive} />
    ) : null,
    inputProps: { 'aria-autocomplete': 'list', 'aria-controls': showMentions || showCommands ? listId : undefined, 'aria-activedescendant': shown ? suggestionOptionId(listId, active) : undefined },
    update: (value, caret) => {
      const found = findMention(value, caret);
      setMention((old) => (found === null ? null : old && old.start === found.start && old.query === found.query ? old : found));
      const before = value.slice(0, caret);
      setSlash(/^\/[^\s/]*$/.test(before) ? before.slice(1) : null);
    },
    closeMention: () => setMention(null),
    close: () => {
      setMention(null);
      setSlash(null);
    },
    onKey,
  };
}
