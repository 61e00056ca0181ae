// A stand-in for the `electron` module, shared by the shell's tests (Electron's binary cannot
// run here). Each test file mocks `electron` with it:
//
//   vi.mock('electron', async () => (await import('../../../host/electron/testing/testing/fake-electron')).electron);
//
// and resets it with resetFakeElectron() between tests. Events fire in Electron's own order
// (electron/shell/browser/electron_navigation_throttle.cc): a navigation emits
// `will-frame-navigate` for every frame, then, for the main frame and only if that was not
// prevented, `will-navigate`; a redirect emits `will-redirect`; window.open asks the
// window-open handler; app 'web-contents-created' fires as a BrowserWindow is made.

type Listener = (...args: never[]) => unknown;

export class FakeEmitter {
  private readonly listeners = new Map<string, Array<{ fn: Listener; once: boolean }>>();

  on(event: string, fn: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), { fn, once: false }]);
    return this;
  }

  once(event: string, fn: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), { fn, once: true }]);
    return this;
  }

  off(event: string, fn: Listener): this {
    this.listeners.set(
      event,
      (this.listeners.get(event) ?? []).filter((l) => l.fn !== fn),
    );
    return this;
  }

  removeListener(event: string, fn: Listener): this {
    return this.off(event, fn);
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.length ?? 0;
  }

  emit(event: string, ...args: unknown[]): boolean {
    const current = this.listeners.get(event) ?? [];
    this.listeners.set(
      event,
      current.filter((l) => !l.once),
    );
    for (const l of current) (l.fn as (...a: unknown[]) => unknown)(...args);
    return current.length > 0;
  }
}

/** Electron's Event: preventDefault() and the event's own fields. */
export class FakeEvent {
  defaultPrevented = false;
  constructor(fields: Record<string, unknown> = {}) {
    Object.assign(this, fields);
  }
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export class FakeFrame {
  constructor(
    public url: string,
    public parent: FakeFrame | null = null,
  ) {}
}

let nextContentsId = 1;

export class FakeWebContents extends FakeEmitter {
  readonly id = nextContentsId++;
  readonly mainFrame = new FakeFrame('');
  windowOpenHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | undefined;
  readonly loaded: string[] = [];
  readonly sent: Array<[string, unknown]> = [];
  reloads = 0;
  destroyed = false;

  constructor(readonly session: FakeSession = electron.session.defaultSession) {
    super();
    fake.contents.push(this);
  }

  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'allow' | 'deny' }): void {
    this.windowOpenHandler = handler;
  }
  loadURL(url: string): Promise<void> {
    this.loaded.push(url);
    this.mainFrame.url = url;
    return Promise.resolve();
  }
  getURL(): string {
    return this.mainFrame.url;
  }
  reload(): void {
    this.reloads++;
  }
  send(channel: string, payload: unknown): void {
    this.sent.push([channel, payload]);
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }

  // ------------------------------------------------ what the page (or Chromium) does

  /** A renderer-initiated navigation, with Electron's events in Electron's order. */
  navigate(url: string, frame: FakeFrame = this.mainFrame): 'navigated' | 'cancelled' {
    const isMainFrame = frame === this.mainFrame;
    const frameEvent = new FakeEvent({ url, isMainFrame, isSameDocument: false, frame, initiator: frame });
    this.emit('will-frame-navigate', frameEvent);
    if (frameEvent.defaultPrevented) return 'cancelled';
    if (isMainFrame) {
      const event = new FakeEvent({ url, isMainFrame, isSameDocument: false, frame, initiator: frame });
      this.emit('will-navigate', event, url);
      if (event.defaultPrevented) return 'cancelled';
    }
    frame.url = url;
    return 'navigated';
  }

  /** A server redirect during a navigation of `frame`. */
  redirect(url: string, frame: FakeFrame = this.mainFrame): 'redirected' | 'cancelled' {
    const event = new FakeEvent({ url, isMainFrame: frame === this.mainFrame, isSameDocument: false, frame });
    this.emit('will-redirect', event, url);
    return event.defaultPrevented ? 'cancelled' : 'redirected';
  }

  /** window.open or a target=_blank link: the handler decides; 'allow' would make a window. */
  windowOpen(url: string): 'allow' | 'deny' {
    if (this.windowOpenHandler === undefined) return 'allow';
    return this.windowOpenHandler({ url }).action;
  }

  attachWebview(): 'attached' | 'cancelled' {
    const event = new FakeEvent();
    this.emit('will-attach-webview', event, {}, {});
    return event.defaultPrevented ? 'cancelled' : 'attached';
  }

  /** The renderer process ended (`crashed`, `oom`, `killed`, `clean-exit`…). */
  processGone(reason: string, exitCode = reason === 'clean-exit' ? 0 : 133): void {
    this.emit('render-process-gone', new FakeEvent(), { reason, exitCode });
  }

  preloadError(path: string, error: Error): void {
    this.emit('preload-error', new FakeEvent(), path, error);
  }
}

export class FakeBrowserWindow extends FakeEmitter {
  readonly webContents: FakeWebContents;
  shown = false;
  maximized = false;
  minimized = false;
  focused = false;
  destroyed = false;

  constructor(readonly options: Record<string, unknown> = {}) {
    super();
    this.webContents = new FakeWebContents();
    fake.windows.push(this);
    electron.app.emit('web-contents-created', new FakeEvent(), this.webContents);
  }
  loadURL(url: string): Promise<void> {
    return this.webContents.loadURL(url);
  }
  loadFile(path: string): Promise<void> {
    return this.webContents.loadURL(`file://${path}`);
  }
  show(): void {
    this.shown = true;
  }
  maximize(): void {
    this.maximized = true;
  }
  isMaximized(): boolean {
    return this.maximized;
  }
  isMinimized(): boolean {
    return this.minimized;
  }
  restore(): void {
    this.minimized = false;
  }
  focus(): void {
    this.focused = true;
  }
  /** The person went to another window. */
  blur(): void {
    this.focused = false;
  }
  isFocused(): boolean {
    return this.focused;
  }
  isDestroyed(): boolean {
    return this.destroyed;
  }
  getNormalBounds(): { x: number; y: number; width: number; height: number } {
    return { x: 0, y: 0, width: 1200, height: 800 };
  }
  close(): void {
    this.emit('close', new FakeEvent());
    this.destroyed = true;
    this.webContents.destroyed = true;
    this.emit('closed');
  }
}

/** Electron's Notification: recorded in `fake.notifications` as made; `click()` is the person clicking it. */
export class FakeNotification extends FakeEmitter {
  static isSupported(): boolean {
    return fake.notificationsSupported;
  }
  shown = false;
  closed = false;

  constructor(readonly options: { title?: string; body?: string; [key: string]: unknown } = {}) {
    super();
    fake.notifications.push(this);
  }
  show(): void {
    this.shown = true;
    this.emit('show', new FakeEvent());
  }
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.emit('close', new FakeEvent());
  }
  /** The person clicks it. */
  click(): void {
    this.emit('click', new FakeEvent());
  }
}

type Handler = (request: Request) => Response | Promise<Response>;

export class FakeSession extends FakeEmitter {
  permissionRequestHandler: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined;
  permissionCheckHandler: ((contents: unknown, permission: string) => boolean) | undefined;
  spellCheckerEnabled = true;
  readonly protocol = {
    handlers: new Map<string, Handler>(),
    handle: (scheme: string, handler: Handler): void => void this.protocol.handlers.set(scheme, handler),
    unhandle: (scheme: string): void => void this.protocol.handlers.delete(scheme),
    isProtocolHandled: (scheme: string): boolean => this.protocol.handlers.has(scheme),
  };

  setPermissionRequestHandler(handler: FakeSession['permissionRequestHandler']): void {
    this.permissionRequestHandler = handler;
  }
  setPermissionCheckHandler(handler: FakeSession['permissionCheckHandler']): void {
    this.permissionCheckHandler = handler;
  }
  setSpellCheckerEnabled(enabled: boolean): void {
    this.spellCheckerEnabled = enabled;
  }
  /** What a request for `url` gets from the registered protocol handler. */
  async fetch(url: string, init?: RequestInit): Promise<Response> {
    const scheme = url.slice(0, url.indexOf(':'));
    const handler = this.protocol.handlers.get(scheme);
    if (handler === undefined) throw new Error(`net::ERR_UNKNOWN_URL_SCHEME (${scheme})`);
    return handler(new Request(url, init));
  }
  /** A download starting (a link with `download`, a navigation to a file): true when it went ahead. */
  download(url: string): boolean {
    const event = new FakeEvent();
    this.emit('will-download', event, { getURL: () => url, cancel: () => event.preventDefault() }, undefined);
    return !event.defaultPrevented;
  }
}

/** What safeStorage answers; tests set these. */
export interface FakeSafeStorageState {
  asyncAvailable: boolean;
  backend: 'basic_text' | 'gnome_libsecret' | 'kwallet' | 'kwallet5' | 'kwallet6' | 'unknown';
  /** The prefix Chromium's OSCrypt writes: `v11` with a keyring key, `v10` with its hard-coded fallback (Linux). */
  prefix: 'v10' | 'v11';
  /** decryptStringAsync's shouldReEncrypt (a rotated key, a better one now available). */
  shouldReEncrypt: boolean;
  /** Two characters naming the key; changing it is a key rotation (old ciphertext still decrypts). */
  keyId: string;
}

function fakeSafeStorage(state: FakeSafeStorageState) {
  return {
    isAsyncEncryptionAvailable: async () => state.asyncAvailable,
    getSelectedStorageBackend: () => state.backend,
    encryptStringAsync: async (plain: string) => Buffer.concat([Buffer.from(state.prefix + state.keyId), Buffer.from(plain, 'utf8').reverse()]),
    decryptStringAsync: async (data: Buffer) => {
      const prefix = data.subarray(0, 3).toString('latin1');
      if (prefix !== 'v10' && prefix !== 'v11') throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
      return { result: Buffer.from(data.subarray(5)).reverse().toString('utf8'), shouldReEncrypt: state.shouldReEncrypt };
    },
  };
}

interface IpcHandlerEvent {
  sender: unknown;
  senderFrame: FakeFrame | null;
}

function createElectron() {
  const app = Object.assign(new FakeEmitter(), {
    isPackaged: true,
    enableSandbox: (): void => void (fake.sandboxEnabled = true),
    requestSingleInstanceLock: (data?: unknown): boolean => {
      fake.lockData = data;
      return fake.singleInstanceLock;
    },
    whenReady: (): Promise<void> =>
      fake.ready.then(() => {
        fake.isReady = true;
      }),
    isReady: (): boolean => fake.isReady,
    getPath: (name: string): string => fake.paths[name] ?? `/fake/${name}`,
    getVersion: (): string => fake.version,
    relaunch: (options?: { execPath?: string; args?: string[] }): void => void fake.relaunches.push(options ?? {}),
    quit: (): void => void fake.quits++,
    exit: (code = 0): void => void fake.exits.push(code),
    commandLine: { hasSwitch: (name: string): boolean => fake.switches.includes(name) },
  });
  const defaultSession = new FakeSession();
  const electronModule = {
    app,
    BrowserWindow: FakeBrowserWindow,
    Notification: FakeNotification,
    session: { defaultSession },
    protocol: {
      privileged: [] as unknown[],
      registerSchemesAsPrivileged(schemes: unknown[]): void {
        if (fake.isReady) throw new Error('protocol.registerSchemesAsPrivileged should be called before app is ready');
        this.privileged.push(...schemes);
      },
    },
    ipcMain: {
      handlers: new Map<string, (event: IpcHandlerEvent, ...args: unknown[]) => unknown>(),
      handle(channel: string, fn: (event: IpcHandlerEvent, ...args: unknown[]) => unknown): void {
        if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
        this.handlers.set(channel, fn);
      },
      removeHandler(channel: string): void {
        this.handlers.delete(channel);
      },
      /** What ipcRenderer.invoke from `sender`'s `frame` gets (rejects as Electron's invoke does). */
      async invoke(channel: string, sender: FakeWebContents, frame: FakeFrame | null, ...args: unknown[]): Promise<unknown> {
        const fn = this.handlers.get(channel);
        if (fn === undefined) throw new Error(`No handler registered for '${channel}'`);
        return structuredClone(await fn({ sender, senderFrame: frame }, ...structuredClone(args)));
      },
    },
    ipcRenderer: Object.assign(new FakeEmitter(), {
      invocations: [] as Array<[string, unknown[]]>,
      invoke(channel: string, ...args: unknown[]): Promise<unknown> {
        this.invocations.push([channel, args]);
        return Promise.resolve({ id: 0, result: { ok: true } });
      },
    }),
    contextBridge: {
      exposed: new Map<string, unknown>(),
      exposeInMainWorld(key: string, api: unknown): void {
        this.exposed.set(key, api);
      },
    },
    shell: { opened: [] as string[], openExternal: async (url: string): Promise<void> => void electronModule.shell.opened.push(url) },
    dialog: {
      showOpenDialog: async (...args: unknown[]): Promise<{ canceled: boolean; filePaths: string[] }> => {
        fake.dialogCalls.push(args);
        return fake.dialogAnswers.shift() ?? { canceled: true, filePaths: [] };
      },
      showErrorBox: (title: string, content: string): void => void fake.errorBoxes.push({ title, content }),
      showMessageBox: async (...args: unknown[]): Promise<{ response: number; checkboxChecked: boolean }> => {
        fake.messageBoxes.push(args);
        return { response: fake.messageBoxAnswers.shift() ?? 0, checkboxChecked: false };
      },
    },
    safeStorage: fakeSafeStorage(fakeSafeStorageState()),
    screen: { getAllDisplays: () => [{ workArea: { x: 0, y: 0, width: 1920, height: 1080 } }] },
    Menu: {
      current: undefined as unknown,
      buildFromTemplate: (template: unknown[]) => ({ template }),
      setApplicationMenu(menu: unknown): void {
        this.current = menu;
      },
    },
  };
  return electronModule;
}

function fakeSafeStorageState(): FakeSafeStorageState {
  return { asyncAvailable: true, backend: 'gnome_libsecret', prefix: 'v11', shouldReEncrypt: false, keyId: 'k1' };
}

function freshState() {
  return {
    windows: [] as FakeBrowserWindow[],
    /** Every Notification made (shown or not). */
    notifications: [] as FakeNotification[],
    /** What Notification.isSupported() answers. */
    notificationsSupported: true,
    contents: [] as FakeWebContents[],
    relaunches: [] as Array<{ execPath?: string; args?: string[] }>,
    exits: [] as number[],
    quits: 0,
    errorBoxes: [] as Array<{ title: string; content: string }>,
    dialogAnswers: [] as Array<{ canceled: boolean; filePaths: string[] }>,
    dialogCalls: [] as unknown[][],
    messageBoxes: [] as unknown[][],
    messageBoxAnswers: [] as number[],
    singleInstanceLock: true,
    /** What requestSingleInstanceLock was given (the launch's data for the first instance). */
    lockData: undefined as unknown,
    /** Chromium switches on the command line (app.commandLine.hasSwitch). */
    switches: [] as string[],
    sandboxEnabled: false,
    isReady: false,
    ready: Promise.resolve(),
    version: '1.2.3',
    paths: {} as Record<string, string>,
    safeStorage: fakeSafeStorageState(),
  };
}

/** What the fake recorded, and the answers it gives; reset by resetFakeElectron. */
export const fake = freshState();
export const electron = createElectron();

export function resetFakeElectron(): void {
  Object.assign(fake, freshState());
  const fresh = createElectron();
  // The module object stays the same (the code under test imported it); its parts are renewed.
  Object.assign(electron, fresh);
  electron.safeStorage = fakeSafeStorage(fake.safeStorage);
}
electron.safeStorage = fakeSafeStorage(fake.safeStorage);

/** The app becomes ready: protocols can no longer be made privileged, and whenReady resolves. */
export function markReady(): void {
  fake.isReady = true;
  electron.app.emit('ready');
}
