// Core's pure helpers the window uses as they are, so it reads the same rules the harness
// applies: each imports nothing, or only types (the renderer bundles them).

export { memoriesStoreTextError } from '../../core/backends/store/memories-store-text';
export { mediaInputFor, takesKind } from '../../core/media/capabilities';
export type { MediaKind } from '../../core/media/kinds';
export { MEDIA_OVERRIDE_PROVIDERS, mediaInputOverride, mediaOverrideKey } from '../../core/media/override';
export { invisiblePatternSource } from '../../core/text/invisible';
export { isSandboxProviderName, PROVIDER_LABELS as SANDBOX_PROVIDER_LABELS } from '../../core/process/sandbox-provider-table';
export { reasonWords, ruleWords, subjectWords } from '../../core/agent/permissions/reason';
