// A settings section's or dialog's failure, as the person reads it.

/** The failure of the last thing tried, announced as it appears; nothing when there is none. */
export function ErrorAlert({ error }: { error: string | null | undefined }): React.JSX.Element | null {
  return error ? (
    <p className="error-text" role="alert">
      {error}
    </p>
  ) : null;
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
