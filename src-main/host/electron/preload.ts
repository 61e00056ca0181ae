import { contextBridge } from 'electron';

contextBridge.exposeInMainWorld('deepdesk', { transport: 'electron' });
