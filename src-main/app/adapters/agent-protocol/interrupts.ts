// The interrupts this host showed over the Agent Protocol (SPEC §19), one book for every
// listener: which approvals each id stands for while they wait, the one last shown per thread
// (what a bare resume may answer), and the ids once issued whose approvals were answered since
// (a late resume is told so). A resume is bound here to the approvals' keys it answers.

import type { ApprovalDecision } from '../../../core/agent/types';
import type { PendingQuestion } from '../../host/run-views';
import type { ProtocolInterrupt } from './context';
import { decisionsOf, interruptId, interruptOf, resumeOf } from './hitl';
import { ProtocolHttpError } from './http';

/** A decision for one approval of the host run, named by its key. */
export interface Answer {
  key: string;
  decision: ApprovalDecision;
}

export const RESUME_BY_ID =
  'Resume by interrupt id: {"command": {"resume": {"<interrupt id>": {"decisions": [...]}}}}, with the ids of the thread\'s interrupts (GET /threads/{thread_id} or its /state).';

/** Retired interrupt ids remembered for a late resume's message. */
const KEPT_RETIRED = 1000;

export class InterruptBook {
  /** The interrupts shown over the protocol while their approvals wait, by id: each one's thread and the approvals (keys, in order) it stands for. */
  private readonly issued = new Map<string, { threadId: string; keys: string[] }>();
  /** Per thread, the id of the interrupt a client was last sent (a run's stream part it read, a `wait` or `join` answer, the thread's state). */
  private readonly shown = new Map<string, string>();
  /** Interrupts once issued whose approvals were answered (the newest few, by id: their thread), so a late resume is told so. */
  private readonly retired = new Map<string, string>();

  /** `questions`: what a thread's host run waits on now. */
  constructor(private readonly questions: (threadId: string) => readonly PendingQuestion[]) {}

  /** The interrupt of the approvals `asking` waits on: issued (its id then answers them), and the thread's last shown unless `shown` is false (not sent yet: `delivered`). */
  show(threadId: string, asking: readonly PendingQuestion[], shown = true): ProtocolInterrupt {
    const interrupt = interruptOf(threadId, asking);
    // Interrupts whose approvals are no longer all pending answer nothing any more: forgotten.
    for (const [id, issued] of this.issued) {
      const pending = new Set(this.questions(issued.threadId).map((q) => q.key));
      if (issued.keys.every((key) => pending.has(key))) continue;
      this.issued.delete(id);
      this.retired.set(id, issued.threadId);
      if (this.retired.size > KEPT_RETIRED) this.retired.delete(this.retired.keys().next().value!);
    }
    for (const [thread, id] of this.shown) if (!this.issued.has(id)) this.shown.delete(thread);
    this.issued.set(interrupt.id, { threadId, keys: asking.map((q) => q.key) });
    if (shown) this.shown.set(threadId, interrupt.id);
    return interrupt;
  }

  /** A client was sent interrupt `id` of the thread. */
  delivered(threadId: string, id: string): void {
    if (this.issued.get(id)?.threadId === threadId) this.shown.set(threadId, id);
  }

  /**
   * What a `command.resume` answers, each decision bound to its approval's key (SPEC §19). Keyed:
   * every id must be an interrupt this host showed for this thread whose approvals all still
   * wait; nothing is answered otherwise. Bare: only when what waits is exactly the interrupt
   * last shown for the thread, else a later approval (one that appeared after the window or a
   * terminal answered the shown one) would take an answer meant for another.
   */
  answersOf(threadId: string, resume: unknown, asking: readonly PendingQuestion[]): Answer[] {
    const read = resumeOf(resume);
    const pending = new Map(asking.map((q) => [q.key, q]));
    if (read.kind === 'positional') {
      const current = interruptId(threadId, asking.map((q) => q.key));
      if (this.shown.get(threadId) !== current) {
        throw new ProtocolHttpError(409, `command.resume: the approvals waiting on thread ${threadId} are not the interrupt this server last showed for it (one was answered elsewhere, or another came since): a resume without an interrupt id is refused. ${RESUME_BY_ID}`);
      }
      return decisionsOf(read.value, asking).map((decision, i) => ({ key: asking[i]!.key, decision }));
    }
    const answers: Answer[] = [];
    const answered = new Set<string>();
    for (const [id, value] of read.answers) {
      const issued = this.issued.get(id);
      if (issued === undefined && this.retired.get(id) === threadId) {
        throw new ProtocolHttpError(409, `command.resume: interrupt ${id} is no longer pending (answered elsewhere); nothing was answered. ${RESUME_BY_ID}`);
      }
      if (issued === undefined || issued.threadId !== threadId) {
        throw new ProtocolHttpError(409, `command.resume: ${JSON.stringify(id)} is not an interrupt of thread ${threadId} waiting for an answer. ${RESUME_BY_ID}`);
      }
      if (!issued.keys.every((key) => pending.has(key))) {
        throw new ProtocolHttpError(409, `command.resume: interrupt ${id} is no longer pending (answered elsewhere); nothing was answered. ${RESUME_BY_ID}`);
      }
      if (issued.keys.some((key) => answered.has(key))) throw new ProtocolHttpError(422, `command.resume: interrupt ${id} answers an approval another id of this resume answers too.`);
      const questions = issued.keys.map((key) => pending.get(key)!);
      decisionsOf(value, questions, `command.resume[${JSON.stringify(id)}]`).forEach((decision, i) => {
        answered.add(questions[i]!.key);
        answers.push({ key: questions[i]!.key, decision });
      });
    }
    return answers;
  }
}
