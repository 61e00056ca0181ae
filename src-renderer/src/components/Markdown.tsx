// Sanitised Markdown with highlighted code. Web links open outside the window once the
// person has seen where they go (state/external-links); links and inline-code paths to files
// in the folder open them in the viewer (only files that are there: a path the folder does
// not have is plain text); code blocks have a Copy button. What rendering may cost the page
// is bounded (lib/markdown-render.ts): large or slow texts are parsed in a worker, shown as
// plain text past a deadline or a size, and inserted in parts; a streaming answer re-renders at most every LIMITS.streamIntervalMs.

import { memo, useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { splitMarkdownBlocks } from '../lib/markdown';
import { blocksAgree, LIMITS, markdownPipeline, plainPieces, type PlainReason, type RenderedPart, type Rendering } from '../lib/markdown-render';
import { useOpenExternalLink } from '../state/external-links';
import { useOpenFile } from '../state/file-links';
import { useTransport } from '../state/transport-context';
import { pathExistence } from '../state/use-path-exists';
import { whileCurrent } from '../lib/while-current';
import { copyText } from './CopyButton';

function activate(target: HTMLElement, openFile: (path: string) => void, openLink: (href: string) => void): boolean {
  const copy = target.closest<HTMLElement>('[data-copy-code]');
  if (copy) {
    const code = copy.closest('.code-block')?.querySelector('pre')?.textContent ?? '';
    void copyText(code).then((ok) => {
      if (!ok) return;
      copy.textContent = 'Copied';
      setTimeout(() => (copy.textContent = 'Copy'), 1500);
    });
    return true;
  }
  const pathLink = target.closest<HTMLElement>('[data-path]:not([data-unlinked])');
  if (pathLink) {
    openFile(pathLink.dataset.path ?? '');
    return true;
  }
  const anchor = target.closest('a');
  if (!anchor) return false;
  // A path the folder does not have: not a link.
  if (anchor.hasAttribute('data-unlinked')) return true;
  // Web and mail links ask first, showing where they really go (state/external-links).
  openLink(anchor.getAttribute('href') ?? '');
  return true;
}

/**
 * Links to folder paths (`data-path`) stay links only for files the folder has; the others
 * become plain text (`data-unlinked`) until the folder has them, and back again if it does.
 */
function applyPathLinks(root: HTMLElement, exists: (path: string) => boolean | undefined): void {
  for (const el of root.querySelectorAll<HTMLElement>('[data-path]')) {
    const link = exists(el.dataset.path ?? '') === true;
    if (link !== el.hasAttribute('data-unlinked')) continue;
    if (!link) {
      el.setAttribute('data-unlinked', '');
      if (el.tagName === 'A') {
        el.setAttribute('data-href', el.getAttribute('href') ?? '');
        el.removeAttribute('href');
      } else {
        el.removeAttribute('role');
        el.removeAttribute('tabindex');
        el.classList.remove('path-link');
      }
      el.removeAttribute('title');
    } else {
      el.removeAttribute('data-unlinked');
      if (el.tagName === 'A') {
        el.setAttribute('href', el.getAttribute('data-href') ?? '');
        el.removeAttribute('data-href');
      } else {
        el.setAttribute('role', 'link');
        el.setAttribute('tabindex', '0');
        el.classList.add('path-link');
      }
      el.setAttribute('title', `Open ${el.dataset.path ?? ''}`);
    }
  }
}

interface Handlers {
  onClick(e: React.MouseEvent<HTMLDivElement>): void;
  /** A middle click would open a link in a new tab or window without asking. */
  onAuxClick(e: React.MouseEvent<HTMLDivElement>): void;
  onKeyDown(e: React.KeyboardEvent<HTMLDivElement>): void;
  /** Keeps folder-path links true to the folder as the rendered HTML changes. */
  ref(el: HTMLDivElement | null): (() => void) | undefined;
}

function useHandlers(): Handlers {
  const openFile = useOpenFile();
  const openLink = useOpenExternalLink();
  const store = pathExistence(useTransport());
  const ref = useCallback(
    (el: HTMLDivElement | null) => {
      if (!el) return undefined;
      const apply = (): void => applyPathLinks(el, (path) => store.get(path));
      apply();
      const observer = new MutationObserver(apply);
      observer.observe(el, { childList: true, subtree: true });
      const off = store.subscribe(apply);
      return () => {
        observer.disconnect();
        off();
      };
    },
    [store],
  );
  return useMemo(
    () => ({
      ref,
      onClick(e) {
        if (activate(e.target as HTMLElement, openFile, openLink)) e.preventDefault();
      },
      onAuxClick(e) {
        if (e.button === 1 && activate(e.target as HTMLElement, openFile, openLink)) e.preventDefault();
      },
      onKeyDown(e) {
        const target = e.target as HTMLElement;
        if ((e.key === 'Enter' || e.key === ' ') && target.matches('[data-copy-code], code[data-path]:not([data-unlinked])')) {
          e.preventDefault();
          activate(target, openFile, openLink);
        }
      },
    }),
    [openFile, openLink, ref],
  );
}

// ------------------------------------------------------------------------------ hooks

/**
 * The rendering of `text`: at once when it costs little, else from the worker (null meanwhile).
 * `mode` 'off' renders nothing (a streaming answer is rendered by block); 'immediate' only what
 * renders at once (blocks shown while the whole text is on its way).
 */
function useRendering(text: string, force: boolean, mode: 'off' | 'immediate' | 'worker'): Rendering | null {
  const pipeline = markdownPipeline();
  const immediate = useMemo(() => (mode === 'off' ? null : pipeline.immediate(text, force)), [pipeline, text, force, mode]);
  const [late, setLate] = useState<{ text: string; force: boolean; rendering: Rendering } | null>(null);
  useEffect(() => {
    if (immediate !== null || mode !== 'worker') return;
    const request = pipeline.request(text);
    const drop = whileCurrent(request.promise, (rendering) => setLate({ text, force, rendering }));
    return () => {
      drop();
      request.cancel();
    };
  }, [pipeline, text, force, immediate, mode]);
  if (immediate !== null) return immediate;
  return mode === 'worker' && late !== null && late.text === text && late.force === force ? late.rendering : null;
}

/** How many of `parts` are inserted as HTML: as many as the page's budget allows now, the rest in later tasks. */
function useReveal(parts: readonly RenderedPart[] | null): number {
  const pipeline = markdownPipeline();
  const [state, setState] = useState(() => ({ parts, count: parts === null ? 0 : pipeline.revealNow(parts, 0) }));
  let current = state;
  if (state.parts !== parts) {
    current = { parts, count: parts === null ? 0 : pipeline.revealNow(parts, 0) };
    setState(current);
  }
  const from = current.count;
  useEffect(() => {
    if (parts === null || from >= parts.length) return;
    return pipeline.revealLater(parts, from, (count) => setState((s) => (s.parts === parts && s.count < count ? { parts, count } : s)));
    // Scheduled once per set of parts, from what its first render showed (`from` then).
  }, [pipeline, parts]);
  return current.count;
}

/**
 * `value`, updated at most every `ms` (the last value always arrives). `prepare`, when given,
 * runs on a value in a task of its own just before the render that shows it: a frame then
 * holds either that work or the render, not both.
 */
function useThrottled<T>(value: T, ms: number, prepare?: (value: T) => void): T {
  const [shown, setShown] = useState(value);
  const last = useRef(0);
  const prepareRef = useRef(prepare);
  prepareRef.current = prepare;
  useEffect(() => {
    if (Object.is(value, shown)) return;
    const show = (): void => {
      last.current = performance.now();
      prepareRef.current?.(value);
      setShown(value);
    };
    const wait = last.current + ms - performance.now();
    if (wait <= 0 && prepareRef.current === undefined) {
      show();
      return;
    }
    const timer = setTimeout(show, Math.max(0, wait));
    return () => clearTimeout(timer);
  }, [value, shown, ms]);
  return shown;
}

/** The last text split into blocks, kept: a streaming text is split once per update, not once per user of it. */
let lastSplit: { text: string; blocks: string[] } | null = null;

function blocksOf(text: string): string[] {
  if (lastSplit?.text !== text) lastSplit = { text, blocks: splitMarkdownBlocks(text) };
  return lastSplit.blocks;
}

/** Renders, ahead of the render that shows `text`, its blocks not rendered yet (the growing end; within the page's budget). */
function renderNewBlocks(text: string): void {
  const pipeline = markdownPipeline();
  const blocks = blocksOf(text);
  let from = blocks.length;
  while (from > 0 && pipeline.cached(blocks[from - 1]!) === undefined) from -= 1;
  for (let i = from; i < blocks.length; i++) pipeline.immediate(blocks[i]!, false);
}

// ------------------------------------------------------------------------- components

/** Plain text in parts the page lays out only when they are scrolled into view. */
const PlainText = memo(function PlainText({ text }: { text: string }): React.JSX.Element {
  const pieces = useMemo(() => plainPieces(text, 8_000), [text]);
  if (pieces.length === 1) return <div className="md-plain">{text}</div>;
  return (
    <div className="md-plain">
      {pieces.map((piece, i) => (
        <div key={i} className="md-plain-part">
          {piece}
        </div>
      ))}
    </div>
  );
});

const Part = memo(function Part({ part, rendered, single }: { part: RenderedPart; rendered: boolean; single: boolean }): React.JSX.Element {
  const className = single ? 'md-block' : 'md-part';
  if (rendered && part.html !== null) return <div className={className} dangerouslySetInnerHTML={{ __html: part.html }} />;
  return (
    <div className={className}>
      <PlainText text={part.source} />
    </div>
  );
});

function Parts({ parts, shown }: { parts: readonly RenderedPart[]; shown: number }): React.JSX.Element {
  return (
    <>
      {parts.map((part, i) => (
        <Part key={i} part={part} rendered={i < shown} single={parts.length === 1} />
      ))}
    </>
  );
}

/** One block of a streaming (or not yet rendered) text; while a newer version is on its way, the last one stays. */
const MarkdownBlock = memo(function MarkdownBlock({ block, useWorker }: { block: string; useWorker: boolean }): React.JSX.Element {
  const rendering = useRendering(block, false, useWorker ? 'worker' : 'immediate');
  const [last, setLast] = useState<Rendering | null>(rendering);
  if (rendering !== null && rendering !== last) setLast(rendering);
  const shown = rendering ?? last;
  const parts = shown?.kind === 'html' ? shown.parts : null;
  const count = useReveal(parts);
  if (parts === null) {
    return (
      <div className="md-block">
        <PlainText text={block} />
      </div>
    );
  }
  return <Parts parts={parts} shown={count} />;
});

function Blocks({ text, useWorker }: { text: string; useWorker: boolean }): React.JSX.Element {
  const blocks = useMemo(() => blocksOf(text), [text]);
  return (
    <>
      {blocks.map((block, i) => (
        <MarkdownBlock key={i} block={block} useWorker={useWorker} />
      ))}
    </>
  );
}

function FallbackNote({ reason, chars, onRender }: { reason: PlainReason; chars: number; onRender?: () => void }): React.JSX.Element {
  const why =
    reason === 'large'
      ? `Shown as plain text: at ${chars.toLocaleString('en-US')} characters it is too large to render as Markdown here.`
      : reason === 'slow'
        ? 'Shown as plain text: rendering it as Markdown took too long.'
        : 'Shown as plain text: it could not be rendered as Markdown.';
  return (
    <p className="md-note muted" role="note">
      <span>{why}</span>
      {onRender ? (
        <button type="button" className="btn btn-small" onClick={onRender}>
          Render Markdown
        </button>
      ) : null}
    </p>
  );
}

/** Whether every part of a rendering is HTML (none shown as its source). */
function allHtml(rendering: Rendering | undefined): boolean {
  return rendering?.kind === 'html' && rendering.parts.every((part) => part.html !== null);
}

/**
 * Whether a streamed text's whole rendering says what its blocks say (blocksAgree), so its
 * blocks may stay. A block not rendered yet (the stream's last words came with its end, and
 * a busy page left its rendering to the worker) is waited for, the blocks staying meanwhile:
 * deciding without it would swap the whole answer for nothing. `whole` is the whole's
 * rendering when the page has it at once (small, or cached); else the worker compares the
 * two (pipeline.agree), and the whole is rendered only when they differ.
 */
function useBlocksAgreement(whole: Rendering | null, streamed: boolean, text: string): 'agree' | 'differ' | 'pending' {
  const pipeline = markdownPipeline();
  const blocks = useMemo(() => (streamed ? blocksOf(text) : []), [streamed, text]);
  /** Renderings of blocks that came late, for this text. */
  const [late, setLate] = useState<{ text: string; renderings: ReadonlyMap<string, Rendering> }>({ text, renderings: new Map() });
  const own = useCallback(
    (block: string): Rendering | undefined => (late.text === text ? late.renderings.get(block) : undefined) ?? pipeline.cached(block) ?? pipeline.immediate(block, false) ?? undefined,
    [late, text, pipeline],
  );
  const missing = useMemo(() => (streamed ? blocks.filter((block) => own(block) === undefined) : []), [streamed, blocks, own]);
  /** Every block is shown as HTML: only then may the blocks stay. */
  const blocksHtml = useMemo(() => streamed && missing.length === 0 && blocks.every((block) => allHtml(own(block))), [streamed, missing, blocks, own]);
  const [checked, setChecked] = useState<{ text: string; agree: boolean } | null>(null);
  const ask = streamed && whole === null && missing.length === 0 && blocksHtml;
  useEffect(() => {
    if (!ask) return undefined;
    const request = pipeline.agree(text, blocks);
    const drop = whileCurrent(request.promise, (agree) => setChecked({ text, agree }));
    return () => {
      drop();
      request.cancel();
    };
  }, [ask, pipeline, text, blocks]);
  useEffect(() => {
    if (missing.length === 0) return undefined;
    const requests = missing.map((block) => ({ block, request: pipeline.request(block) }));
    const drop = whileCurrent(Promise.all(requests.map(({ block, request }) => request.promise.then((r) => [block, r] as const))), (done) =>
      setLate((prev) => ({ text, renderings: new Map([...(prev.text === text ? prev.renderings : []), ...done]) })),
    );
    return () => {
      drop();
      for (const { request } of requests) request.cancel();
    };
  }, [missing, pipeline, text]);
  return useMemo(() => {
    if (!streamed) return 'differ';
    if (missing.length > 0) return 'pending';
    if (whole !== null) return blocksAgree(whole, blocks, own) ? 'agree' : 'differ';
    if (!blocksHtml) return 'differ';
    return checked?.text === text ? (checked.agree ? 'agree' : 'differ') : 'pending';
  }, [whole, streamed, missing, blocks, own, blocksHtml, checked, text]);
}

interface ViewProps {
  text: string;
  streaming: boolean;
  classes: string;
  handlers: Handlers;
}

/**
 * A streaming text renders block by block (each block cached, the last one re-rendered at most
 * every LIMITS.streamIntervalMs); a finished one as a whole. Once a streamed text is whole, its
 * blocks stay for good when the whole says what they say (blocksAgree; asked of the worker
 * when the whole is not at hand): the end of a stream then sanitises, builds and lays out
 * nothing anew. Only when they differ is the whole rendered, the blocks staying meanwhile.
 */
function MarkdownView({ text, streaming, classes, handlers }: ViewProps): React.JSX.Element {
  const throttled = useThrottled(text, streaming ? LIMITS.streamIntervalMs : 0, streaming ? renderNewBlocks : undefined);
  // "Render Markdown" on a text too large to render unasked applies to that text only.
  const [forcedFor, setForcedFor] = useState<string | null>(null);
  const force = forcedFor === text;
  // Once streamed, its blocks keep rendering in the worker until the whole is there (then they may stay).
  const [streamed, setStreamed] = useState(streaming);
  if (streaming && !streamed) setStreamed(true);
  const whole = useRendering(text, force, streaming ? 'off' : 'immediate');
  // Decided once the text is whole (while it streams, its blocks are all there is).
  const agreement = useBlocksAgreement(whole, streamed && !streaming, text);
  const late = useRendering(text, force, !streaming && whole === null && (!streamed || agreement === 'differ') ? 'worker' : 'off');
  const rendering = whole ?? late;
  const keepBlocks = streamed && agreement !== 'differ';
  const parts = rendering?.kind === 'html' && !keepBlocks ? rendering.parts : null;
  const shown = useReveal(parts);
  if (rendering === null || keepBlocks) {
    return (
      <div className={classes} aria-busy={agreement === 'pending' || (rendering === null && agreement !== 'agree') ? 'true' : undefined} {...handlers}>
        <Blocks text={streaming ? throttled : text} useWorker={streamed} />
      </div>
    );
  }
  if (rendering.kind === 'plain') {
    return (
      <>
        {/* The note and its button are the app's, outside the text the model or the folder wrote. */}
        <FallbackNote reason={rendering.reason} chars={text.length} {...(rendering.reason === 'large' ? { onRender: () => setForcedFor(text) } : {})} />
        <div className={classes} {...handlers}>
          <PlainText text={text} />
        </div>
      </>
    );
  }
  return (
    <div className={classes} aria-busy={shown < parts!.length ? 'true' : undefined} {...handlers}>
      <Parts parts={parts!} shown={shown} />
    </div>
  );
}

interface MarkdownProps {
  text: string;
  className?: string;
  /** While the text streams in, it is rendered block by block so only the last block changes. */
  streaming?: boolean;
}

export const Markdown = memo(function Markdown({ text, className, streaming = false }: MarkdownProps): React.JSX.Element {
  const handlers = useHandlers();
  const classes = `markdown${className ? ` ${className}` : ''}`;
  return <MarkdownView text={text} streaming={streaming} classes={classes} handlers={handlers} />;
});
