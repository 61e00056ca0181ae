// A path split where a narrow row may cut it: the folders (which give way first) and the
// file name (which stays). A folder path keeps its last folder as the name (`src/lib/`).

export function splitPath(path: string): { dir: string; base: string } {
  const trimmed = path.endsWith('/') && path.length > 1 ? path.slice(0, -1) : path;
  const slash = trimmed.lastIndexOf('/');
  if (slash < 0 || slash === trimmed.length - 1) return { dir: '', base: path };
  return { dir: path.slice(0, slash + 1), base: path.slice(slash + 1) };
}
