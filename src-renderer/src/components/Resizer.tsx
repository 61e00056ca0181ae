// A draggable, keyboard-operable edge between two parts of the window (role separator).
// Arrow keys move it by 16 px (Shift: 64), Home/End go to the limits, double-click or
// Enter restores the default size.

import { useRef } from 'react';

interface ResizerProps {
  label: string;
  /** 'vertical': a vertical bar that resizes widths; 'horizontal': heights. */
  orientation: 'vertical' | 'horizontal';
  /** The size it controls, in px. */
  value: number;
  min: number;
  max: number;
  /** -1 when dragging right/down makes the size smaller (a panel on the right or below). */
  direction?: 1 | -1;
  onChange(value: number): void;
  onReset(): void;
}

export function Resizer({ label, orientation, value, min, max, direction = 1, onChange, onReset }: ResizerProps): React.JSX.Element {
  const drag = useRef<{ start: number; value: number } | null>(null);
  const clampTo = (v: number): number => Math.round(Math.min(Math.max(v, min), Math.max(min, max)));
  const coordinate = (e: React.PointerEvent): number => (orientation === 'vertical' ? e.clientX : e.clientY);

  const onKeyDown = (e: React.KeyboardEvent): void => {
    const step = e.shiftKey ? 64 : 16;
    const grow = orientation === 'vertical' ? (direction === 1 ? 'ArrowRight' : 'ArrowLeft') : direction === 1 ? 'ArrowDown' : 'ArrowUp';
    const shrink = orientation === 'vertical' ? (direction === 1 ? 'ArrowLeft' : 'ArrowRight') : direction === 1 ? 'ArrowUp' : 'ArrowDown';
    let next: number | null = null;
    if (e.key === grow) next = value + step;
    else if (e.key === shrink) next = value - step;
    else if (e.key === 'Home') next = min;
    else if (e.key === 'End') next = max;
    else if (e.key === 'Enter') {
      e.preventDefault();
      onReset();
      return;
    }
    if (next === null) return;
    e.preventDefault();
    onChange(clampTo(next));
  };

  return (
    <div
      role="separator"
      aria-label={label}
      aria-orientation={orientation}
      aria-valuenow={Math.round(value)}
      aria-valuemin={Math.round(min)}
      aria-valuemax={Math.round(Math.max(min, max))}
      tabIndex={0}
      title={`${label} (drag, or arrow keys; double-click to reset)`}
      className={`resizer resizer-${orientation}`}
      onKeyDown={onKeyDown}
      onDoubleClick={onReset}
      onPointerDown={(e) => {
        if (e.button !== 0) return;
        e.preventDefault();
        e.currentTarget.setPointerCapture(e.pointerId);
        drag.current = { start: coordinate(e), value };
        document.body.classList.add(`resizing-${orientation}`);
      }}
      onPointerMove={(e) => {
        const d = drag.current;
        if (!d) return;
        onChange(clampTo(d.value + (coordinate(e) - d.start) * direction));
      }}
      onPointerUp={(e) => {
        drag.current = null;
        e.currentTarget.releasePointerCapture(e.pointerId);
        document.body.classList.remove(`resizing-${orientation}`);
      }}
      onPointerCancel={() => {
        drag.current = null;
        document.body.classList.remove(`resizing-${orientation}`);
      }}
    />
  );
}
