// Error texts that SPEC §3 fixes word for word. Tools put `Error: ` in front of them.

export const messages = {
  fileNotFound: (path: string) => `File '${path}' not found`,
  pathNotFound: (path: string) => `Path '${path}' not found`,
  isDirectory: (path: string) => `'${path}' is a directory, not a file`,
  notADirectory: (path: string) => `'${path}' is not a directory`,
  outsideRoot: (path: string) => `Path '${path}' is outside the project folder`,
  permissionDenied: (path: string) => `Permission denied: '${path}'`,
  offsetPastEnd: (offset: number, total: number) => `Line offset ${offset} exceeds file length (${total} lines)`,
  stringNotFound: (oldString: string) => `String not found in file: '${oldString}'`,
  ambiguousString: (oldString: string, count: number) =>
    `String '${oldString}' appears ${count} times in file. Use replace_all=true to replace every instance, or add surrounding context to make it unique.`,
  emptyOldString: 'old_string is empty but the file is not; give the exact text to replace (use write_file to replace the whole file)',
  binaryTooLarge: (path: string, bytes: number) => `'${path}' is a binary file of ${bytes} bytes; files over 10 MB are not read`,
  notUtf8: (path: string) => `'${path}' is not valid UTF-8 text; it cannot be edited as text`,
  changedWhileOpening: (path: string) => `'${path}' changed while it was being opened (a link or folder was swapped); nothing was read. Try again`,
  binaryEdit: (path: string) => `'${path}' is a binary file; it cannot be edited as text`,
};
