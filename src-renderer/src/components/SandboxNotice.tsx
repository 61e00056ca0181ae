// Once per folder, where no sandbox exists: a line in the Terminal region saying so and what
// it means (commands ask unless a rule allows them; auto is unavailable). Recorded as shown
// at once, so it does not come back on the next open; dismissible.

import { useEffect, useRef, useState } from 'react';
import type { ModeApi } from '../state/use-mode';

export function SandboxNotice({ mode }: { mode: ModeApi }): React.JSX.Element | null {
  const { state, noticeShown } = mode;
  const [visible, setVisible] = useState(false);
  const reported = useRef(false);

  useEffect(() => {
    if (!state || reported.current || state.sandbox.available || state.sandboxNoticeShown) return;
    reported.current = true;
    setVisible(true);
    noticeShown();
  }, [state, noticeShown]);

  if (!visible || !state) return null;
  return (
    <div className="sandbox-notice" role="status">
      <span>
        <strong>No sandbox on this machine</strong>
        {state.sandbox.reason ? ` (${state.sandbox.reason})` : ''}: the agent&apos;s commands run unsandboxed, so each asks unless a rule allows it, and auto
        mode is unavailable.
      </span>
      <button type="button" className="btn btn-small btn-quiet" onClick={() => setVisible(false)}>
        Dismiss
      </button>
    </div>
  );
}
