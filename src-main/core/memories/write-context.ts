// Who is writing a memory now, and beside what (SPEC §25): the agent loop runs each tool call
// inside the context of its request (the writer, the untrusted sources in the request, the
// person's words of the turn), so the memories backend decides at the write itself, whatever
// door the write came through. A write with no context is from an unknown model: it is
// proposed (fail closed).

import { AsyncLocalStorage } from 'node:async_hooks';
import type { MemoryWriter } from './memory-types';

export interface MemoryWriteContext {
  writer: MemoryWriter;
  /** The untrusted sources the writing request held; asked only when a memory is written. */
  sources(): readonly string[];
  /** The person's messages of the turn: a memory whose whole text is in them is the person's own. */
  personText(): string;
}

const current = new AsyncLocalStorage<MemoryWriteContext>();

/** Runs `body` with `context` as the writer of any memory it writes. */
export function asMemoryWriter<T>(context: MemoryWriteContext, body: () => T): T {
  return current.run(context, body);
}

export function memoryWriteContext(): MemoryWriteContext | undefined {
  return current.getStore();
}

/** Lowercased, runs of whitespace as one space (SPEC §25's test of the person's own words). */
export function normalizedWords(text: string): string {
  return text.toLowerCase().replace(/\s+/g, ' ').trim();
}

/** Whether a memory's text is the person's own words: its whole text is in what they said. */
export function isPersonsWords(memory: string, personText: string): boolean {
  const words = normalizedWords(memory);
  return words !== '' && normalizedWords(personText).includes(words);
}
