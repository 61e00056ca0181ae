/** Folders never snapshotted even when no .gitignore names them: dependencies and caches. */
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
