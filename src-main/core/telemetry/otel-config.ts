// Where traces go (SPEC §17): the standard OTEL_* variables, read from the environment the
// caller passes (never implicitly from process.env), then Settings › Telemetry's endpoint.
// Nothing configured: no exporter at all, so nothing leaves the machine.
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';

export const DEFAULT_SERVICE_NAME = 'deepdesk';
const TRACES_PATH = 'v1/traces';

export interface OtelConfig {
  /** The OTLP/HTTP traces URL (`…/v1/traces`). */
  url: string;
  headers: Record<string, string>;
  serviceName: string;
  /** OTEL_RESOURCE_ATTRIBUTES (service.name excluded: serviceName has it). */
  resourceAttributes: Record<string, string>;
  captureContent: boolean;
  /** Set when OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL asked for another protocol than http/protobuf. */
  ignoredProtocol?: string;
}

export interface OtelConfigInput {
  env: NodeJS.ProcessEnv;
  endpoint?: string;
  captureContent?: boolean;
}

/** The configuration, or undefined when tracing is off (not configured, OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER=none). */
export function readOtelConfig({ env, endpoint, captureContent }: OtelConfigInput): OtelConfig | undefined {
  if (isTrue(env.OTEL_SDK_DISABLED)) return undefined;
  // `otlp` (the default) is the one exporter there is; `none` or only others (console, zipkin): no traces.
  const exporters = list(env.OTEL_TRACES_EXPORTER);
  if (exporters.length > 0 && !exporters.includes('otlp')) return undefined;

  const url = tracesUrl(env, endpoint);
  if (url === undefined) return undefined;

  const protocol = value(env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL) ?? value(env.OTEL_EXPORTER_OTLP_PROTOCOL);
  const resourceAttributes = parseResourceAttributes(value(env.OTEL_RESOURCE_ATTRIBUTES));
  const serviceName = value(env.OTEL_SERVICE_NAME) ?? resourceAttributes['service.name'] ?? DEFAULT_SERVICE_NAME;
  delete resourceAttributes['service.name'];
  return {
    url,
    // The traces-specific variable wins, header by header.
    headers: { ...headersOf(env.OTEL_EXPORTER_OTLP_HEADERS), ...headersOf(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS) },
    serviceName,
    resourceAttributes,
    captureContent: captureContent === true || isTrue(env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT),
    ...(protocol !== undefined && protocol.toLowerCase() !== 'http/protobuf' ? { ignoredProtocol: protocol } : {}),
  };
}

/**
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is; else OTEL_EXPORTER_OTLP_ENDPOINT with
 * `/v1/traces` appended; else the Settings endpoint, a base URL as the latter (one already
 * ending in /v1/traces is taken as it is). An unparsable URL is no endpoint.
 */
function tracesUrl(env: NodeJS.ProcessEnv, settingsEndpoint: string | undefined): string | undefined {
  const specific = value(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  if (specific !== undefined) return httpUrl(specific);
  const base = value(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (base !== undefined) return httpUrl(withTracesPath(base));
  const fromSettings = value(settingsEndpoint);
  if (fromSettings === undefined) return undefined;
  return httpUrl(/\/v1\/traces\/?$/.test(fromSettings) ? fromSettings : withTracesPath(fromSettings));
}

function withTracesPath(base: string): string {
  return `${base.endsWith('/') ? base : `${base}/`}${TRACES_PATH}`;
}

function httpUrl(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** `key=value,key2=value2`, percent-decoded (the W3C baggage format the spec names). */
function headersOf(raw: string | undefined): Record<string, string> {
  if (value(raw) === undefined) return {};
  try {
    return parseKeyPairsIntoRecord(raw);
  } catch {
    return {};
  }
}

/** As the SDK's own detector: any malformed entry discards the whole variable (the spec's rule). */
export function parseResourceAttributes(raw: string | undefined): Record<string, string> {
  if (raw === undefined) return {};
  const attributes: Record<string, string> = {};
  try {
    for (const entry of raw.split(',')) {
      if (entry.trim() === '') continue;
      const pair = entry.split('=');
      if (pair.length !== 2) return {};
      const key = decodeURIComponent(pair[0]!.trim());
      if (key === '') return {};
      attributes[key] = decodeURIComponent(pair[1]!.trim());
    }
  } catch {
    return {};
  }
  return attributes;
}

function value(raw: string | undefined): string | undefined {
  const trimmed = raw?.trim();
  return trimmed ? trimmed : undefined;
}

function isTrue(raw: string | undefined): boolean {
  return value(raw)?.toLowerCase() === 'true';
}

function list(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);
}
