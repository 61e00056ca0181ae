// A small server for the supervisor's tests: one JSON request a line on stdin, one JSON
// answer a line on stdout ({ id, ok, value } or { id, ok: false, error }). It tries what a
// hostile or careless server would: read secrets, write anywhere, connect out, spawn
// processes that outlive it.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import { setTimeout } from 'node:timers';

process.stderr.write('\x1b[1;31mprobe\x1b[0m started\n');

function httpGet(url) {
  const proxy = process.env.HTTP_PROXY;
  const target = new URL(url);
  const options = proxy
    ? { host: new URL(proxy).hostname, port: new URL(proxy).port, path: url, headers: { host: target.host } }
    : { host: target.hostname, port: target.port, path: target.pathname };
  return new Promise((resolve, reject) => {
    const req = get(options, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('timeout')));
  });
}

const idle = ['-e', 'setInterval(() => {}, 1000)'];

async function handle(request) {
  switch (request.op) {
    case 'read':
      return readFileSync(request.path, 'utf8');
    case 'write':
      writeFileSync(request.path, request.text);
      return true;
    case 'symlink':
      symlinkSync(request.target, request.path);
      return true;
    case 'mkdir':
      mkdirSync(request.path, { recursive: true });
      return true;
    case 'env':
      return process.env;
    case 'connect':
      return new Promise((resolve, reject) => {
        const socket = connect(request.port, request.host, () => {
          socket.destroy();
          resolve('connected');
        });
        socket.on('error', reject);
        socket.setTimeout(5000, () => socket.destroy(new Error('timeout')));
      });
    case 'get':
      return httpGet(request.url);
    case 'spawn': {
      // One child in its group, one in a session of its own: both must end with the server.
      const children = [spawn(process.execPath, idle, { stdio: 'ignore' }), spawn(process.execPath, idle, { stdio: 'ignore', detached: true })];
      for (const child of children) child.unref();
      return children.map((child) => child.pid);
    }
    case 'log':
      process.stderr.write(request.text);
      return true;
    case 'exit':
      setTimeout(() => process.exit(request.code), 10);
      return true;
    default:
      throw new Error(`unknown op ${request.op}`);
  }
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  handle(request).then(
    (value) => process.stdout.write(`${JSON.stringify({ id: request.id, ok: true, value })}\n`),
    (err) => process.stdout.write(`${JSON.stringify({ id: request.id, ok: false, error: String(err.code ?? err.message) })}\n`),
  );
});
