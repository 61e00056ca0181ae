// A settings section's or dialog's failure, as the person reads it.

/** The failure of the last thing tried, announced as it appears; nothing when there is none. */
export function ErrorAlert({ error }: { error: string | null | undefined }): React.JSX.Element | null {
  return error ? (
    <p className="error-text" role="alert">
      {error}
    </p>
  ) : null;
}

/** Under a form's fields: the failure of the last try, announced, else what goes on or a hint. */
export function FormMessage({ id, error, live = false, children }: { id?: string; error: string | null; live?: boolean; children: React.ReactNode }): React.JSX.Element {
  return error !== null ? (
    <p id={id} className="error-text" role="alert">
      {error}
    </p>
  ) : (
    <p id={id} className="muted small" aria-live={live ? 'polite' : undefined}>
      {children}
    </p>
  );
}

/** What could not be used of a configuration, a line each. */
export function ProblemLines({ problems }: { problems: readonly string[] | undefined }): React.JSX.Element {
  return (
    <>
      {problems?.map((problem) => (
        <p key={problem} className="error-text small">
          {problem}
        </p>
      ))}
    </>
  );
}
