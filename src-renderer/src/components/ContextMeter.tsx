// How full the model's context is, and what the thread has cost so far.

import type { UsageTotals } from '../lib/agent-event';
import { contextFraction, formatCost, formatTokens } from '../lib/format';
import '../styles/usage.css';

export function ContextMeter({ tokens, window, usage, lastRun = null }: { tokens: number; window: number; usage: UsageTotals | null; lastRun?: UsageTotals | null }): React.JSX.Element {
  const fraction = contextFraction(tokens, window);
  const level = fraction >= 0.85 ? 'high' : fraction >= 0.6 ? 'mid' : 'low';
  const cost = formatCost(usage?.costUsd);
  const runCost = formatCost(lastRun?.costUsd);
  // Tokens spent with no cost: the model's price is unknown (SPEC §17: tokens only).
  const used = usage !== null && usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens > 0;
  const text = window > 0 ? `${formatTokens(tokens)} / ${formatTokens(window)} tokens` : `${formatTokens(tokens)} tokens`;
  const detail = usage
    ? `Input ${formatTokens(usage.inputTokens)} · output ${formatTokens(usage.outputTokens)} · cache read ${formatTokens(usage.cacheReadTokens)} · cache write ${formatTokens(usage.cacheWriteTokens)}`
    : 'No usage yet';
  return (
    <div className="context-meter" title={detail}>
      <div
        className={`meter meter-${level}`}
        role="meter"
        aria-label="Context used"
        aria-valuemin={0}
        aria-valuemax={window > 0 ? window : 1}
        aria-valuenow={window > 0 ? Math.min(tokens, window) : 0}
        aria-valuetext={`${text}${window > 0 ? ` (${Math.round(fraction * 100)}%)` : ''}`}
      >
        <div className="meter-fill" style={{ width: `${Math.round(fraction * 100)}%` }} />
      </div>
      <span className="meter-text">{text}</span>
      {cost ? (
        <span className="cost" title="What this thread's model calls have cost so far (Usage has them all)">
          <span className="visually-hidden">Cost of this thread: </span>
          {cost}
        </span>
      ) : used ? (
        <span className="cost cost-unknown" title="No price is known for this model: set one in Settings › Prices">
          Cost unknown
        </span>
      ) : null}
      {runCost ? (
        <span className="run-cost" title={`What the latest run used: ${formatTokens(lastRun!.inputTokens)} input and ${formatTokens(lastRun!.outputTokens)} output tokens`}>
          <span className="visually-hidden">Cost of the latest run: </span>
          <span aria-hidden="true">last run </span>
          {runCost}
        </span>
      ) : null}
    </div>
  );
}
