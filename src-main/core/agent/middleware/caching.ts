// Anthropic prompt caching (SPEC §4): ask the adapter to put cache breakpoints on the
// system prompt, the tools and the recent conversation. Other providers cache on their own.

import type { Middleware } from '../middleware';

export function promptCachingMiddleware(): Middleware {
  return {
    name: 'prompt-caching',
    wrapModelCall(ctx, request, next) {
      return next(ctx.model.provider === 'anthropic' ? { ...request, cacheBreakpoints: true } : request);
    },
  };
}
