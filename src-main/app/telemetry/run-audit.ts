// What every run of a session is audited with (SPEC §17): the usage ledger always, traces
// (OpenTelemetry, LangSmith) only when the person configured them, and the budget a run
// must keep. The window, `deepdesk run` and `deepdesk acp` each give their runs
// `audit.runOptions(state)`; nothing else of the audit is theirs to assemble.

import type Database from 'better-sqlite3';
import { RunBudget } from '../../core/agent/budget';
import type { ThreadState } from '../../core/agent/types';
import { codingTraceContext } from '../../core/telemetry/coding-context';
import { langsmithConfig } from '../../core/telemetry/langsmith-config';
import { combineTelemetry, type Telemetry } from '../../core/telemetry/observer';
import { UsageLedger } from '../../core/telemetry/usage-ledger';
import type { PriceOverride } from '../../core/models/model-info';
import type { SandboxSettings } from '../contract/sandboxes';
import type { TelemetrySettings } from '../contract/usage';
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
  settings: () => { telemetry?: TelemetrySettings; threadBudgetUsd?: number; prices?: Readonly<Record<string, PriceOverride>>; sandboxes?: SandboxSettings };
}

export interface AuditRunOptions {
  telemetry: Telemetry;
  budget: RunBudget;
  folder: string;
}

export class RunAudit {
  readonly ledger: UsageLedger;
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
   * What a run of this thread is given: the listeners of its turns and its budget.
   * `maxCostUsd`: `deepdesk run --max-cost`, what this run may spend; `shared`: the budget of
   * the candidates' set the run is one of (SPEC §21), which its calls hold too.
   */
  async runOptions(state: ThreadState, maxCostUsd?: number, shared?: RunBudget): Promise<AuditRunOptions> {
    const settings = this.options.settings();
    const telemetry = await this.telemetry();
    const budget = new RunBudget(
      {
        ...(maxCostUsd !== undefined ? { runUsd: maxCostUsd } : {}),
        ...(settings.threadBudgetUsd !== undefined ? { threadUsd: settings.threadBudgetUsd } : {}),
        ...(shared !== undefined ? { shared } : {}),
      },
      // What the thread has cost, as the ledger prices it now (the run assembly sets it before each run).
      state.usage.costUsd ?? 0,
    );
    return { telemetry, budget, folder: this.options.folder };
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
