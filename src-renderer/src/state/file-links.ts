// Opens a folder file in the viewer from anywhere (links in answers, paths in cards).

import { createContext, useContext } from 'react';

export const FileLinkContext = createContext<(path: string) => void>(() => undefined);

export function useOpenFile(): (path: string) => void {
  return useContext(FileLinkContext);
}
