// What every run of a session is audited with (SPEC §17): the usage ledger always, traces
// (OpenTelemetry, LangSmith) only when the person configured them, and the budget a run
// must keep. The window, `deepdesk run` and `deepdesk acp` each give their runs
// `audit.runOptions(state)`; nothing else of the audit is theirs to assemble.

import type Database from 'better-sqlite3';
import type { ThreadState } from '../../core/agent/types';
import type { SpendNode } from '../../core/spend/spend-tree';
import { codingTraceContext } from '../../core/telemetry/coding-context';
import { langsmithConfig } from '../../core/telemetry/langsmith-config';
import { combineTelemetry, type Telemetry } from '../../core/telemetry/observer';
import { UsageLedger, type SandboxTimeRecord } from '../../core/telemetry/usage-ledger';
import type { PriceOverride } from '../../core/models/model-info';
import type { SandboxSettings } from '../contract/sandboxes';
import type { TelemetrySettings } from '../contract/usage';
import { budgetTreeOf, type BudgetSettings, type BudgetTree, type RunBudgetScope } from '../usage/budget-tree';
import { ledgerPrices } from '../usage/usage-report';

export interface RunAuditOptions {
  db: Database.Database;
  env: NodeJS.ProcessEnv;
  /** The project folder as the person names it (a path, or an ssh:// URL). */
  folder: string;
  /** The local folder git can read, when there is one (a remote folder has none here). */
  localFolder?: string;
  /** How commands are contained (`bubblewrap`, `seatbelt`, `none`, …), for LangSmith's metadata. */
  sandboxType: string;
  version: string;
  /** Read at every run (and prices at every read of the ledger), so a change in Settings applies at once. */
  settings: () => BudgetSettings & { telemetry?: TelemetrySettings; prices?: Readonly<Record<string, PriceOverride>>; sandboxes?: SandboxSettings };
}

export interface AuditRunOptions {
  telemetry: Telemetry;
  budget: SpendNode;
  folder: string;
}

export class RunAudit {
  readonly ledger: UsageLedger;
  /** The process's budget tree (app/usage/budget-tree.ts). */
  readonly budgets: BudgetTree;
  private readonly ledgerTelemetry: Telemetry;
  private langsmith: Telemetry | undefined;
  private otel: { key: string; telemetry: Telemetry | undefined } | undefined;
  private readonly retired: Telemetry[] = [];

  private constructor(
    private readonly options: RunAuditOptions,
    langsmith: Telemetry | undefined,
  ) {
    this.ledger = new UsageLedger(options.db, ...ledgerPrices(options.settings));
    this.ledgerTelemetry = this.ledger.telemetry();
    this.budgets = budgetTreeOf(options.db, options.settings);
    this.langsmith = langsmith;
  }

  static async open(options: RunAuditOptions): Promise<RunAudit> {
    let langsmith: Telemetry | undefined;
    if (langsmithConfig(options.env) !== undefined) {
      // Git's facts are read once, bounded in time: a session's branch is what it started on.
      const context = await codingTraceContext(options.localFolder ?? options.folder, options.sandboxType, AbortSignal.timeout(5_000)).catch(() => ({
        cwd: options.folder,
        sandboxType: options.sandboxType,
      }));
      const { langsmithTelemetry } = await import('../../core/telemetry/langsmith');
      langsmith = langsmithTelemetry({ env: options.env, context: options.localFolder === undefined ? { ...context, cwd: options.folder } : context });
    }
    return new RunAudit(options, langsmith);
  }

  /**
   * What a run of this thread is given: the listeners of its turns and where its calls hold in
   * the budget tree (its thread's node; `scope`: the run's own `--max-cost`, its candidates' set).
   */
  async runOptions(state: ThreadState, scope?: RunBudgetScope): Promise<AuditRunOptions> {
    const telemetry = await this.telemetry();
    return { telemetry, budget: this.budgets.run(state.id, this.options.folder, scope), folder: this.options.folder };
  }

  /** A slice of a provider sandbox's time (SPEC §18): the ledger's row and the budget tree's count (§26), through this one door. */
  recordSandboxTime(slice: SandboxTimeRecord): void {
    this.ledger.recordSandboxTime(slice);
    this.budgets.sandboxTime(slice.threadId, slice.folder, slice.costUsd);
  }

  /** The listeners of a run's model calls now (core/telemetry/metering.ts): the ledger always, the exporters configured. */
  async telemetry(): Promise<Telemetry> {
    return combineTelemetry([this.ledgerTelemetry, await this.otelFor(this.options.settings().telemetry), this.langsmith])!;
  }

  /** Sends what the exporters hold (bounded in time) and writes the ledger's last rows. */
  async flush(): Promise<void> {
    this.ledger.flush();
    await Promise.allSettled([this.otel?.telemetry?.flush?.(), this.langsmith?.flush?.()]);
  }

  async close(): Promise<void> {
    this.ledger.close();
    const exporters = [this.otel?.telemetry, this.langsmith, ...this.retired];
    this.otel = undefined;
    this.langsmith = undefined;
    await Promise.allSettled(exporters.map((t) => t?.shutdown?.()));
  }

  /**
   * The OpenTelemetry exporter for the settings now; a changed endpoint gets a new one. The SDK
   * (~10 MB of the host's memory) loads only when an endpoint is set or an OTEL_ variable is:
   * without either, nothing is configured (otel-config.ts reads no other).
   */
  private async otelFor(settings: TelemetrySettings | undefined): Promise<Telemetry | undefined> {
    const endpoint = settings?.otlpEndpoint?.trim() || undefined;
    const key = `${endpoint ?? ''}\0${settings?.captureContent === true}`;
    if (this.otel?.key === key) return this.otel.telemetry;
    const configured = endpoint !== undefined || Object.keys(this.options.env).some((name) => name.startsWith('OTEL_'));
    const otelTelemetry = configured ? (await import('../../core/telemetry/otel')).otelTelemetry : () => undefined;
    // Another run asked meanwhile and made it: one exporter per key.
    if (this.otel?.key === key) return this.otel.telemetry;
    if (this.otel?.telemetry) this.retired.push(this.otel.telemetry);
    const telemetry = otelTelemetry({
      env: this.options.env,
      ...(endpoint !== undefined ? { endpoint } : {}),
      ...(settings?.captureContent === true ? { captureContent: true } : {}),
      serviceVersion: this.options.version,
    });
    this.otel = { key, telemetry };
    return telemetry;
  }
}
