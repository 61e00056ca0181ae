// The floor plans eslint.config.js declares, for the import-graph test (scripts/import-graph.test.ts).
export declare const CORE_FLOORS: readonly string[];
export declare const APP_FLOORS: readonly string[];
export declare const TYPES_FROM_ABOVE: Readonly<Record<string, readonly string[]>>;
export declare const VALUES_FROM_ABOVE: Readonly<Record<string, readonly string[]>>;
declare const config: unknown;
export default config;
