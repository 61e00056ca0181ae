// Whether the person is looking at this page: it is shown and has the focus (not another tab,
// not another window in front).

import { useEffect, useState } from 'react';

function looking(): boolean {
  return document.visibilityState === 'visible' && document.hasFocus();
}

export function usePageLooking(): boolean {
  const [now, setNow] = useState(looking);
  useEffect(() => {
    const check = (): void => setNow(looking());
    window.addEventListener('focus', check);
    window.addEventListener('blur', check);
    document.addEventListener('visibilitychange', check);
    check();
    return () => {
      window.removeEventListener('focus', check);
      window.removeEventListener('blur', check);
      document.removeEventListener('visibilitychange', check);
    };
  }, []);
  return now;
}
