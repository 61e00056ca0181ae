/** Dependency and cache folders: never snapshotted, even when no .gitignore names them, and not looked into by the live git guard. */
export const HEAVY_FOLDERS: ReadonlySet<string> = new Set([
  'node_modules',
  'bower_components',
  '.venv',
  'venv',
  '__pycache__',
  '.tox',
  '.mypy_cache',
  '.pytest_cache',
  '.ruff_cache',
  '.gradle',
  '.next',
  '.nuxt',
  '.turbo',
  '.terraform',
  '.cache',
  '.parcel-cache',
]);
