import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createTransport } from './transport';
import './styles/theme.css';
// The window's own sheets, in this order: a later one may restyle what an earlier one set.
import './styles/base.css';
import './styles/layout.css';
import './styles/controls.css';
import './styles/threads.css';
import './styles/conversation.css';
import './styles/cards.css';
import './styles/files.css';
import './styles/memories.css';
import './styles/terminal.css';
import './styles/modes.css';
import './styles/dialogs.css';
import './styles/toasts.css';
import './styles/settings.css';
import './styles/first-hour.css';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App transport={createTransport()} />
    </StrictMode>,
  );
}
