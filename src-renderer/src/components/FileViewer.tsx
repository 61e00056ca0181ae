// Shows an opened file: text with line numbers (highlighted when the language is known),
// images, PDFs (PdfView), audio and video (native players), or a description of a binary file. Re-read when the file changes on disk.

import { useEffect, useMemo, useState } from 'react';
import type { FileContent } from '../../../src-main/app/contract';
import { formatBytes } from '../lib/format';
import { languageForPath } from '../lib/highlight';
import { markdownPipeline } from '../lib/markdown-render';
import { Icon, IconButton, Spinner } from './Icon';
import { Markdown } from './Markdown';
import { whileCurrent } from '../lib/while-current';
import { PdfView } from './PdfView';

export interface OpenFile {
  path: string;
  content?: FileContent;
  error?: string;
  deleted?: boolean;
}

const MAX_LINES = 20_000;

function isMarkdown(path: string): boolean {
  return /\.(md|markdown|mdx)$/i.test(path);
}

/**
 * Highlighted HTML for `code`, or null to show it as plain text: small code at once, larger
 * code from the Markdown worker (some grammars take time that grows much faster than the
 * code), plain text meanwhile and for good past the worker's deadline.
 */
function useHighlighted(code: string, language: string | undefined): { html: string | null; pending: boolean } {
  const pipeline = markdownPipeline();
  const immediate = useMemo(() => pipeline.immediateHighlight(code, language), [pipeline, code, language]);
  const [late, setLate] = useState<{ code: string; language: string; html: string | null } | null>(null);
  useEffect(() => {
    if (immediate !== undefined || language === undefined) return;
    const request = pipeline.requestHighlight(code, language);
    const drop = whileCurrent(request.promise, (html) => setLate({ code, language, html }));
    return () => {
      drop();
      request.cancel();
    };
  }, [pipeline, code, language, immediate]);
  if (immediate !== undefined) return { html: immediate, pending: false };
  if (late !== null && late.code === code && late.language === language) return { html: late.html, pending: false };
  return { html: null, pending: language !== undefined };
}

function TextView({ path, text }: { path: string; text: string }): React.JSX.Element {
  const { shown, count, cut } = useMemo(() => {
    const lines = text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const cut = lines.length > MAX_LINES;
    const shown = cut ? lines.slice(0, MAX_LINES).join('\n') : lines.join('\n');
    return { shown, count: Math.min(lines.length, MAX_LINES), cut };
  }, [text]);
  const { html, pending } = useHighlighted(shown, languageForPath(path));
  const gutter = useMemo(() => Array.from({ length: Math.max(count, 1) }, (_, i) => i + 1).join('\n'), [count]);
  return (
    <>
      {cut ? <p className="muted viewer-note" role="note">Showing the first {MAX_LINES.toLocaleString('en-US')} lines.</p> : null}
      <div className="code-view" tabIndex={0} aria-label={`Contents of ${path}`} aria-busy={pending ? 'true' : undefined}>
        <pre className="code-gutter" aria-hidden="true">
          {gutter}
        </pre>
        <pre className="code-text">
          {html === null ? (
            <code key="plain" className="hljs">
              {shown}
            </code>
          ) : (
            <code key="highlighted" className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
          )}
        </pre>
      </div>
    </>
  );
}

/** A blob: URL for base64 bytes, revoked when they change or the view goes. */
function useObjectUrl(data: string, mimeType: string): string | null {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
    const made = URL.createObjectURL(new Blob([bytes], { type: mimeType }));
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [data, mimeType]);
  return url;
}

function MediaView({ content, name }: { content: Extract<FileContent, { kind: 'media' }>; name: string }): React.JSX.Element {
  const url = useObjectUrl(content.data, content.mimeType);
  if (content.media === 'document') return <PdfView path={content.path} data={content.data} />;
  if (url === null) return <Spinner label="Loading the file" />;
  return content.media === 'audio' ? (
    <div className="media-view">
      <audio controls src={url} aria-label={`Audio ${name}`} preload="metadata" />
    </div>
  ) : (
    <div className="media-view">
      <video controls src={url} aria-label={`Video ${name}`} preload="metadata" />
    </div>
  );
}

export function FileViewer({ file, onClose }: { file: OpenFile; onClose(): void }): React.JSX.Element {
  const content = file.content;
  // Markdown is shown rendered; the source is one click away.
  const [source, setSource] = useState(false);
  const markdown = content?.kind === 'text' && isMarkdown(content.path);
  const slash = file.path.lastIndexOf('/');
  const name = file.path.slice(slash + 1);
  const folder = file.path.slice(0, slash + 1);
  return (
    <section className="panel viewer-panel" aria-label="File viewer" data-region="File viewer">
      <div className="panel-head">
        <h2 className="panel-title viewer-title" title={file.path}>
          <Icon name="file" size={14} />
          <span className="viewer-name">{name}</span>
          <span className="viewer-path muted">
            <bdi>{folder}</bdi>
          </span>
        </h2>
        {markdown ? (
          <button type="button" className="btn btn-small btn-quiet" aria-pressed={source} onClick={() => setSource((v) => !v)}>
            {source ? 'Show rendered' : 'Show source'}
          </button>
        ) : null}
        <IconButton icon="x" aria-label="Close file" title="Close" onClick={onClose} />
      </div>
      <div className="viewer-body">
        {file.deleted ? <p className="notice notice-error">This file was deleted on disk.</p> : null}
        {file.error ? (
          <p className="error-text viewer-note">{file.error}</p>
        ) : content === undefined ? (
          <div className="panel-empty">
            <Spinner label="Loading the file" />
          </div>
        ) : content.kind === 'text' ? (
          <>
            {/* Said first, where the person starts reading, not after two million characters. */}
            {content.truncated ? (
              <p className="viewer-note viewer-truncated" role="note">
                The file is larger than the viewer shows; this is its beginning.
              </p>
            ) : null}
            {markdown && !source ? (
              <div className="markdown-view" tabIndex={0} aria-label={`Contents of ${content.path}`}>
                <Markdown text={content.text} />
              </div>
            ) : (
              <TextView path={content.path} text={content.text} />
            )}
          </>
        ) : content.kind === 'image' ? (
          <div className="image-view">
            <img src={`data:${content.mimeType};base64,${content.data}`} alt={name} />
          </div>
        ) : content.kind === 'media' ? (
          <MediaView content={content} name={name} />
        ) : content.tooLarge ? (
          <p className="viewer-note">
            {name} is {formatBytes(content.size)} ({content.mimeType}): the viewer shows files up to 10 MB.
          </p>
        ) : (
          <p className="viewer-note">
            Binary file ({content.mimeType}, {formatBytes(content.size)}) — not shown.
          </p>
        )}
      </div>
    </section>
  );
}
