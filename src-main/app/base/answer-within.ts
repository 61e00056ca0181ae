// A request the window makes answers promptly (issue 42): slow work (a clone, a network check)
// is waited for a short while; past that the request answers with what is known now and the
// work goes on, its result told as an event.

/** How long a request may wait for slow work before it answers without it. */
export const PROMPT_ANSWER_MS = 2_000;

export const LATER = Symbol('later');

/** `work`'s value when it comes within `ms`, else LATER (the work goes on). */
export async function answerWithin<T>(work: Promise<T>, ms = PROMPT_ANSWER_MS): Promise<T | typeof LATER> {
  let timer: NodeJS.Timeout | undefined;
  const later = new Promise<typeof LATER>((resolve) => (timer = setTimeout(() => resolve(LATER), ms)));
  try {
    return await Promise.race([work, later]);
  } finally {
    clearTimeout(timer);
  }
}
