// The page's Markdown worker: parsing (marked) and highlighting (highlight.js), whose cost
// can grow faster than the text (emphasis, nested lists, some grammars), run here, off the
// page's main thread, where the page can stop them at a deadline (markdown-render.ts).
// Sanitising needs a DOM and stays in the page, in bounded steps.

import { highlightCode } from './highlight';
import { chunksAgree, markdownChunks } from './markdown';
import type { WorkerReply, WorkerRequest } from './markdown-render';

const scope = self as unknown as {
  onmessage: ((event: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(message: WorkerReply): void;
};

scope.onmessage = (event) => {
  const request = event.data;
  try {
    if (request.kind === 'markdown') scope.postMessage({ id: request.id, ok: true, chunks: markdownChunks(request.text) });
    else if (request.kind === 'agree') scope.postMessage({ id: request.id, ok: true, agree: chunksAgree(request.text, request.blocks) });
    else scope.postMessage({ id: request.id, ok: true, html: highlightCode(request.code, request.language) });
  } catch (err) {
    // A stack overflow on deep nesting, say: the page shows the text as plain text.
    scope.postMessage({ id: request.id, ok: false, error: err instanceof Error ? err.message : String(err) });
  }
};
