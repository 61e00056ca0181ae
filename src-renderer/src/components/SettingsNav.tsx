// Settings' section navigation: a list of links beside the one scroll of sections. A link
// scrolls its section to the top of the scroll and moves the keyboard there; the link of the
// section in view is marked current as the person scrolls.

import { useCallback, useEffect, useRef, useState, type ReactNode, type RefObject } from 'react';

export interface SettingsSectionRef {
  /** The anchor's id (unique in the page). */
  id: string;
  /** The section's name, as its own heading or legend says it. */
  label: string;
}

/** One section in the scroll, the target of its link. */
export function SettingsAnchor({ section, children }: { section: SettingsSectionRef; children: ReactNode }): React.JSX.Element {
  return (
    <div id={section.id} className="settings-anchor" data-settings-section>
      {children}
    </div>
  );
}

/** How far below the scroll's top a section may start and still be the one in view. */
const TOP_SLACK = 24;

/** The section in view: the last whose top is at (or above) the scroll's top; at the bottom, the one last asked for if it shows. */
function sectionInView(scroller: HTMLElement, sections: readonly SettingsSectionRef[], asked: string | null): string | null {
  const top = scroller.getBoundingClientRect().top;
  let current: string | null = sections[0]?.id ?? null;
  for (const section of sections) {
    const el = document.getElementById(section.id);
    if (el && el.getBoundingClientRect().top - top <= TOP_SLACK) current = section.id;
  }
  const atBottom = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - 2;
  if (asked !== null && atBottom) {
    const el = document.getElementById(asked);
    if (el && el.getBoundingClientRect().top >= top) return asked;
  }
  return current;
}

/** `initial`: the id of a section to go to when the navigation first shows (as its link would). */
export function SettingsNav({ sections, scroller, initial }: { sections: readonly SettingsSectionRef[]; scroller: RefObject<HTMLElement | null>; initial?: string | undefined }): React.JSX.Element {
  const [current, setCurrent] = useState<string | null>(sections[0]?.id ?? null);
  const asked = useRef<string | null>(null);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return undefined;
    let frame = 0;
    const onScroll = (): void => {
      cancelAnimationFrame(frame);
      frame = requestAnimationFrame(() => setCurrent(sectionInView(el, sections, asked.current)));
    };
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      cancelAnimationFrame(frame);
      el.removeEventListener('scroll', onScroll);
    };
  }, [scroller, sections]);

  const go = useCallback((id: string): void => {
    const anchor = document.getElementById(id);
    if (!anchor) return;
    asked.current = id;
    setCurrent(id);
    anchor.scrollIntoView({ block: 'start' });
    // The keyboard follows: the section itself (its fieldset or region) takes focus, so Tab
    // goes on into its controls and a screen reader names where it landed.
    const target = anchor.firstElementChild instanceof HTMLElement ? anchor.firstElementChild : anchor;
    if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
    target.focus({ preventScroll: true });
  }, []);

  // After the dialog has put the keyboard on its first control (its effect runs after this one).
  const [start] = useState(initial);
  useEffect(() => {
    if (start === undefined) return undefined;
    const frame = requestAnimationFrame(() => go(start));
    return () => cancelAnimationFrame(frame);
  }, [start, go]);

  return (
    <nav className="settings-nav" aria-label="Settings sections">
      <ul>
        {sections.map((section) => (
          <li key={section.id}>
            <a
              href={`#${section.id}`}
              aria-current={current === section.id ? 'true' : undefined}
              onClick={(e) => {
                e.preventDefault();
                go(section.id);
              }}
            >
              {section.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}
