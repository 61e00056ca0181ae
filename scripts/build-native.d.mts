/** Compiles the programs of src-main/**\/native/*.c into out/native/ (Linux), where missing or older than their source. */
export function buildNative(options?: { quiet?: boolean }): void;
