// Placeholder for the checkpoints panel (the files the agent changed in this thread);
// the real one replaces this file. It keeps the region and head the layout frames.

export function ChangesPanel(props: { threadId: string | null }): React.JSX.Element {
  return (
    <section className="panel changes-panel" aria-label="Changes">
      <div className="panel-head">
        <h2 className="panel-title">Changes</h2>
      </div>
      <p className="panel-empty muted">{props.threadId ? 'No changes in this thread yet.' : 'Open a thread to see its changes.'}</p>
    </section>
  );
}
