// Keeps one panel's crash from taking the window down; the panel can be retried.

import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** The panel's name, for the message. */
  name: string;
  children: ReactNode;
}

interface State {
  error: Error | null;
}

export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: unknown): State {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`deepdesk: the ${this.props.name} panel crashed`, error, info.componentStack);
  }

  override render(): ReactNode {
    if (this.state.error === null) return this.props.children;
    return (
      <div className="panel-crash" role="alert">
        <p>
          The {this.props.name} panel ran into a problem: <code>{this.state.error.message}</code>
        </p>
        <button type="button" className="btn" onClick={() => this.setState({ error: null })}>
          Try again
        </button>
      </div>
    );
  }
}
