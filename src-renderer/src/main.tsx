import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createTransport } from './transport';
import './styles/theme.css';
import './styles/app.css';
import './styles/first-hour.css';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App transport={createTransport()} />
    </StrictMode>,
  );
}
