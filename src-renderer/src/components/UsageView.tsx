// The `Usage` view (SPEC §17): the ledger of every model call by thread, day or model since a
// date, with totals. It takes the conversation's place in the centre column while it is shown
// (the header's `Usage` button); a thread's row opens that thread (one of another folder opens
// that folder first, as the Agents view's row does). The table is the source of
// truth; by day a bar chart of cost per day (tokens when no price is known) comes first, its
// text alternative saying what it shows. Sandbox time (SPEC §18), when there is any, follows
// in its own section, grouped the same way. By thread, a turn whose cost drifted (SPEC §26) is
// said under its thread (`Turn 4: cost ×2.7 the thread's median`). It asks the ledger again
// when shown, when Group by or Since change, and when a run ends.

import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { costDriftText, isSandboxProviderName, SANDBOX_PROVIDER_LABELS, sandboxTimeText, type CostDriftDto, type UsageGrouping, type UsageReport, type UsageRow, type UsageSums } from '../../../src-main/app/contract';
import {
  costCell,
  dayChart,
  formatCount,
  sandboxCostCell,
  SINCE_CHOICES,
  sinceParam,
  unpricedNote,
  unpricedSandboxNote,
  type CostCell,
  type DayChart,
  type SinceChoice,
} from '../lib/usage';
import { errorMessage } from '../state/toasts';
import { useApi } from '../state/use-api';
import { useConnection, useEvent } from '../state/transport-context';
import { ErrorAlert } from './ErrorText';
import { Options } from './TextField';
import { Icon, Spinner } from './Icon';
import { useRovingFocus } from './use-roving-focus';
import { UsageBudgetTree } from './UsageBudgetTree';
import '../styles/usage.css';

const GROUPINGS: ReadonlyArray<{ value: UsageGrouping; label: string }> = [
  { value: 'thread', label: 'Thread' },
  { value: 'day', label: 'Day' },
  { value: 'model', label: 'Model' },
];

/** How long to wait for more changes before asking the ledger again (a run ending sends a few). */
const REFRESH_DELAY_MS = 200;

interface UsageViewProps {
  /** This folder's threads (another folder's, or a deleted one, are not among them). */
  threadIds: ReadonlySet<string>;
  onOpenThread(threadId: string): void;
  /** Opens a thread of another folder: that folder first, then the thread. */
  onOpenOtherFolderThread(threadId: string): void;
  onClose(): void;
}

export function UsageView({ threadIds, onOpenThread, onOpenOtherFolderThread, onClose }: UsageViewProps): React.JSX.Element {
  const api = useApi();
  const { reconnects } = useConnection();
  const ids = useId();
  const [by, setBy] = useState<UsageGrouping>('thread');
  const [since, setSince] = useState<SinceChoice>('all');
  const [sinceDate, setSinceDate] = useState('');
  /** The last report read, with the question it answers (`by|since`). */
  const [report, setReport] = useState<{ asked: string; report: UsageReport } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);
  const generation = useRef(0);
  const heading = useRef<HTMLHeadingElement>(null);
  const tabs = useRef<HTMLDivElement>(null);
  const onTabsKeyDown = useRovingFocus(tabs, '[role="tab"]', 'horizontal');

  const sinceValue = sinceParam(since, sinceDate);
  const load = useCallback(async () => {
    const mine = ++generation.current;
    if (sinceValue === null) {
      setLoading(false);
      return;
    }
    setLoading(true);
    try {
      const next = await api.call('usage.report', { by, ...(sinceValue !== undefined ? { since: sinceValue } : {}) });
      if (mine !== generation.current) return;
      setReport({ asked: `${by}|${sinceValue ?? ''}`, report: next });
      setError(null);
    } catch (err) {
      if (mine !== generation.current) return;
      setError(errorMessage(err));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, [api, by, sinceValue]);

  useEffect(() => {
    void load();
  }, [load, reconnects]);

  // A run that ended (or a thread renamed or deleted) changes the ledger or its labels.
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const later = useCallback(() => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void load(), REFRESH_DELAY_MS);
  }, [load]);
  useEffect(() => () => clearTimeout(timer.current), []);
  useEvent('threads.changed', later);
  useEvent('thread.event', ({ event }) => {
    if (event.type === 'done' && event.parentToolCallId === undefined) later();
  });

  // Shown: the keyboard goes to its heading, so a screen reader says where it is.
  useEffect(() => {
    heading.current?.focus();
  }, []);

  // Only the answer to the question shown (another grouping or date waits for its own).
  const shown = sinceValue !== null && report?.asked === `${by}|${sinceValue ?? ''}` ? report.report : null;
  const tabId = (value: UsageGrouping): string => `${ids}-tab-${value}`;
  const panelId = `${ids}-panel`;
  const dateId = `${ids}-since-date`;
  const chart = shown && by === 'day' ? dayChart(shown.rows, shown.total) : null;
  const note = shown ? unpricedNote(shown.total) : null;
  const sinceLabel = since === 'date' ? `since ${sinceValue ?? 'a date'}` : (SINCE_CHOICES.find((c) => c.value === since)?.label.toLowerCase() ?? '');
  const openers: RowOpeners = { threadIds, onOpenThread, onOpenOtherFolderThread };
  const empty = since === 'all' ? 'No model calls yet.' : since === 'date' ? `No model calls ${sinceLabel}.` : `No model calls in the ${sinceLabel}.`;

  return (
    <section className="usage-view" aria-label="Usage" data-region="Usage">
      <div className="usage-head">
        <h1 className="usage-heading" ref={heading} tabIndex={-1}>
          Usage
        </h1>
        <div className="usage-controls">
          <span className="usage-tabs-label" id={`${ids}-group-by`}>
            Group by
          </span>
          <div className="usage-tabs" role="tablist" aria-labelledby={`${ids}-group-by`} ref={tabs} onKeyDown={onTabsKeyDown}>
            {GROUPINGS.map((g) => (
              <button
                key={g.value}
                type="button"
                role="tab"
                id={tabId(g.value)}
                aria-selected={by === g.value}
                aria-controls={panelId}
                className={`usage-tab${by === g.value ? ' selected' : ''}`}
                onClick={() => setBy(g.value)}
                onFocus={() => setBy(g.value)}
              >
                {g.label}
              </button>
            ))}
          </div>
          <div className="usage-since">
            <label htmlFor={`${ids}-since`}>Since</label>
            <select id={`${ids}-since`} value={since} onChange={(e) => setSince(e.target.value as SinceChoice)}>
              <Options options={SINCE_CHOICES} />
            </select>
            {since === 'date' ? (
              <>
                <label htmlFor={dateId} className="visually-hidden">
                  Since date
                </label>
                <input id={dateId} type="date" value={sinceDate} onChange={(e) => setSinceDate(e.target.value)} aria-invalid={sinceValue === null && sinceDate !== '' ? true : undefined} />
              </>
            ) : null}
          </div>
        </div>
        <button type="button" className="btn btn-small btn-quiet usage-close" onClick={onClose} aria-label="Close Usage" title="Back to the conversation">
          <Icon name="x" size={14} />
          <span aria-hidden="true">Close</span>
        </button>
      </div>
      <div className="usage-body" role="tabpanel" id={panelId} aria-labelledby={tabId(by)} tabIndex={0} aria-busy={loading || undefined}>
        {since === 'date' && sinceValue === null ? <p className="muted">Choose a day to count from.</p> : null}
        <ErrorAlert error={error && `The usage could not be read: ${error}`} />
        {shown === null ? (
          error === null && sinceValue !== null ? <Spinner label="Loading usage" /> : null
        ) : (
          <>
            {shown.rows.length === 0 ? (
              <p className="muted usage-empty">{empty}</p>
            ) : (
              <>
                {chart ? <DayBars chart={chart} /> : null}
                <UsageTable report={shown} sinceLabel={sinceLabel} {...openers} />
                {note ? <p className="usage-note">{note}</p> : null}
              </>
            )}
            {shown.sandboxes.length > 0 ? <SandboxTime report={shown} sinceLabel={sinceLabel} {...openers} /> : null}
            <UsageBudgetTree version={shown} />
          </>
        )}
      </div>
    </section>
  );
}

const FIRST_COLUMN: Record<UsageGrouping, string> = { thread: 'Thread', day: 'Day (UTC)', model: 'Model' };

interface RowOpeners {
  threadIds: ReadonlySet<string>;
  onOpenThread(id: string): void;
  onOpenOtherFolderThread(id: string): void;
}

function UsageTable({ report, sinceLabel, ...openers }: { report: UsageReport; sinceLabel: string } & RowOpeners): React.JSX.Element {
  const drifts = report.by === 'thread' ? driftsByThread(report.drifts) : new Map<string, CostDriftDto[]>();
  return (
    <table className="usage-table">
      <caption>
        By {report.by}, {sinceLabel}: tokens, and cost in US dollars
      </caption>
      <thead>
        <tr>
          <th scope="col">{FIRST_COLUMN[report.by]}</th>
          <th scope="col">Calls</th>
          <th scope="col">Input</th>
          <th scope="col">Output</th>
          <th scope="col">Cache read</th>
          <th scope="col">Cache write</th>
          <th scope="col">Cost</th>
        </tr>
      </thead>
      <tbody>
        {report.rows.map((row) => (
          <tr key={row.key}>
            <th scope="row" className="usage-label">
              <RowLabel row={row} by={report.by} {...openers} />
              {drifts.get(row.key)?.map((d) => (
                <span key={d.turn} className="usage-drift">
                  Turn {d.turn}: {costDriftText(d.ratio)}
                </span>
              ))}
            </th>
            <SumCells sums={row} />
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">Total</th>
          <SumCells sums={report.total} />
        </tr>
      </tfoot>
    </table>
  );
}

/** SPEC §26: each thread's turns that cost far more than its usual, under its label. */
function driftsByThread(drifts: readonly CostDriftDto[]): Map<string, CostDriftDto[]> {
  const by = new Map<string, CostDriftDto[]>();
  for (const d of drifts) by.set(d.thread, [...(by.get(d.thread) ?? []), d]);
  return by;
}

function RowLabel(props: { row: Pick<UsageRow, 'key' | 'label' | 'folder' | 'agent'>; by: UsageGrouping } & RowOpeners): React.JSX.Element {
  const { row, by } = props;
  if (by !== 'thread' || row.agent === undefined) return <ThreadLabel {...props} />;
  // Another agent's thread says whose it is (SPEC §22).
  return (
    <>
      <ThreadLabel {...props} /> <span className="badge usage-agent">{row.agent}</span>
    </>
  );
}

function ThreadLabel({ row, by, threadIds, onOpenThread, onOpenOtherFolderThread }: { row: Pick<UsageRow, 'key' | 'label' | 'folder'>; by: UsageGrouping } & RowOpeners): React.JSX.Element {
  if (by !== 'thread') return <span className={by === 'model' ? 'mono' : undefined}>{row.label}</span>;
  // Sandbox time of no thread.
  if (row.key === '') return <span>{row.label}</span>;
  if (threadIds.has(row.key)) {
    return (
      <button type="button" className="usage-thread-link" title="Open this thread" onClick={() => onOpenThread(row.key)}>
        {row.label || 'Untitled thread'}
      </button>
    );
  }
  // Usage counts every folder's threads: another folder's opens there; a deleted one nowhere.
  if (row.folder === undefined) {
    return (
      <span>
        {row.label} <span className="muted">(deleted)</span>
      </span>
    );
  }
  const folder = folderName(row.folder);
  return (
    <button type="button" className="usage-thread-link" title={`Open this thread in ${row.folder}`} onClick={() => onOpenOtherFolderThread(row.key)}>
      {row.label || 'Untitled thread'} <span className="usage-folder">(in {folder})</span>
    </button>
  );
}

function SumCells({ sums }: { sums: UsageSums }): React.JSX.Element {
  return (
    <>
      <td className="usage-wraps">
        {formatCount(sums.calls)}
        {sums.failedCalls > 0 ? (
          <>
            {' '}
            <span className="muted usage-failed">({formatCount(sums.failedCalls)} failed)</span>
          </>
        ) : null}
      </td>
      <td>{formatCount(sums.inputTokens)}</td>
      <td>{formatCount(sums.outputTokens)}</td>
      <td>{formatCount(sums.cacheReadTokens)}</td>
      <td>{formatCount(sums.cacheWriteTokens)}</td>
      <CostTd cost={costCell(sums)} />
    </>
  );
}

/** A cost as the table shows it: the amount, `+ unknown` when part has no price, and what a dash means for a screen reader. */
function CostTd({ cost }: { cost: CostCell }): React.JSX.Element {
  const shown = (
    <>
      {cost.amount}
      {cost.partly ? (
        <>
          {' '}
          <span className="usage-nowrap">+ unknown</span>
        </>
      ) : null}
    </>
  );
  return (
    <td className="usage-wraps" title={cost.note}>
      {cost.note ? (
        <>
          <span aria-hidden="true">{shown}</span>
          <span className="visually-hidden">{cost.note}</span>
        </>
      ) : (
        shown
      )}
    </td>
  );
}

// ------------------------------------------------------------------ sandbox time

/** Sandbox time grouped as the calls are (and apart by provider), with its total and the line about time of no price. */
function SandboxTime({ report, sinceLabel, ...openers }: { report: UsageReport; sinceLabel: string } & RowOpeners): React.JSX.Element {
  const headingId = useId();
  const note = unpricedSandboxNote(report.sandboxTotal);
  return (
    <section className="usage-sandboxes" aria-labelledby={headingId}>
      <h2 id={headingId} className="usage-subheading">
        Sandbox time
      </h2>
      <table className="usage-table">
        <caption>
          By {report.by}, {sinceLabel}: time in each provider's sandboxes, and cost in US dollars
        </caption>
        <thead>
          <tr>
            <th scope="col">{FIRST_COLUMN[report.by]}</th>
            <th scope="col">Provider</th>
            <th scope="col">Time</th>
            <th scope="col">Cost</th>
          </tr>
        </thead>
        <tbody>
          {report.sandboxes.map((row) => (
            <tr key={`${row.key}\n${row.provider}`}>
              <th scope="row" className="usage-label">
                <RowLabel row={row} by={report.by} {...openers} />
              </th>
              <td>{isSandboxProviderName(row.provider) ? SANDBOX_PROVIDER_LABELS[row.provider] : row.provider}</td>
              <td>{sandboxTimeText(row.seconds)}</td>
              <CostTd cost={sandboxCostCell(row)} />
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">Total</th>
            <td />
            <td>{sandboxTimeText(report.sandboxTotal.seconds)}</td>
            <CostTd cost={sandboxCostCell(report.sandboxTotal)} />
          </tr>
        </tfoot>
      </table>
      {note ? <p className="usage-note">{note}</p> : null}
    </section>
  );
}

// ------------------------------------------------------------------ the chart

const CHART = { width: 640, height: 150, left: 76, bottom: 20, top: 8 } as const;
/** The widest a day's slot gets: a few days stay at the left, over their labels. */
const MAX_SLOT = 56;
const FEW_DAYS = 10;

/** Bars of cost (or tokens) per day; an image whose text alternative summarises it. */
function DayBars({ chart }: { chart: DayChart }): React.JSX.Element {
  const plotWidth = CHART.width - CHART.left - 4;
  const plotHeight = CHART.height - CHART.bottom - CHART.top;
  const slot = Math.min(MAX_SLOT, plotWidth / chart.bars.length);
  const barWidth = Math.max(1, slot * 0.7);
  const baseline = CHART.top + plotHeight;
  const first = chart.bars[0]?.day ?? '';
  const last = chart.bars.at(-1)?.day ?? '';
  const center = (i: number): number => CHART.left + i * slot + slot / 2;
  // A few days: each under its bar (month and day; the whole date when alone). More: the first and last at the ends.
  const few = chart.bars.length <= FEW_DAYS;
  return (
    <figure className="usage-chart">
      <svg role="img" aria-label={chart.summary} viewBox={`0 0 ${CHART.width} ${CHART.height}`} preserveAspectRatio="xMinYMin meet">
        <line className="usage-chart-axis" x1={CHART.left} y1={CHART.top} x2={CHART.width - 4} y2={CHART.top} strokeDasharray="3 3" />
        <line className="usage-chart-axis" x1={CHART.left} y1={baseline} x2={CHART.width - 4} y2={baseline} />
        <text className="usage-chart-text" x={CHART.left - 6} y={CHART.top + 4} textAnchor="end">
          {chart.maxLabel}
        </text>
        <text className="usage-chart-text" x={CHART.left - 6} y={baseline} textAnchor="end">
          0
        </text>
        {chart.bars.map((bar, i) => {
          const height = bar.share * plotHeight;
          return (
            <rect key={bar.day} className="usage-chart-bar" x={CHART.left + i * slot + (slot - barWidth) / 2} y={baseline - height} width={barWidth} height={height}>
              <title>{bar.label}</title>
            </rect>
          );
        })}
        {few ? (
          chart.bars.map((bar, i) => (
            <text key={bar.day} className="usage-chart-text" x={center(i)} y={CHART.height - 4} textAnchor="middle">
              {chart.bars.length === 1 ? bar.day : bar.day.slice(5)}
            </text>
          ))
        ) : (
          <>
            <text className="usage-chart-text" x={CHART.left} y={CHART.height - 4} textAnchor="start">
              {first}
            </text>
            <text className="usage-chart-text" x={CHART.width - 4} y={CHART.height - 4} textAnchor="end">
              {last}
            </text>
          </>
        )}
      </svg>
      <figcaption className="muted small">{chart.metric === 'cost' ? 'Cost per day (the table below has every figure).' : 'Tokens per day: no price is known for these calls (the table below has every figure).'}</figcaption>
    </figure>
  );
}

/** The last segment of a folder's path or URL, as the header names a folder. */
function folderName(folder: string): string {
  return folder.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || folder;
}
