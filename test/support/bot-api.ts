// A loopback stand-in of the Telegram Bot API (shapes: test/fixtures/telegram/README.md, from
// https://core.telegram.org/bots/api): getMe, getUpdates with long polling (an update stays until a later call's
// offset confirms it), sendMessage, answerCallbackQuery and editMessageReplyMarkup, each call recorded. Tests queue
// updates with `push` (a `replay` is delivered again even though its id was confirmed, as a restarted or faulty
// API would) and wait with `idle()` until the bot has come back for more with every queued update confirmed.
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';

const fixtures = new URL('../fixtures/telegram/', import.meta.url);
const read = (name: string) => JSON.parse(readFileSync(new URL(name, fixtures), 'utf8')) as Record<string, unknown>;
export const updateTemplates = read('updates.json') as Record<string, Record<string, unknown>>;
const answers = read('answers.json') as Record<string, unknown>;

export interface Call {
  method: string;
  params: Record<string, unknown>;
}

export interface BotApiStandIn {
  /** The `baseUrl` to configure. */
  url: string;
  calls: Call[];
  /** The params of each call of `method`, in order. */
  of(method: string): Record<string, unknown>[];
  /** The texts sent with sendMessage, in order. */
  texts(): string[];
  /** Queues an update; its update_id is the next unless given. Returns the id. */
  push(update: Record<string, unknown>, options?: { replay?: boolean }): number;
  /** Resolves once the bot polls again with every queued update delivered and confirmed (so handled). */
  idle(): Promise<void>;
  /** Resolves once update `id` was handed to the bot in a getUpdates answer. */
  delivered(id: number): Promise<void>;
  /** Answer the next calls of `method` with this HTTP status and body instead. */
  fail(method: string, status: number, body: Record<string, unknown>, times?: number): void;
}

interface Queued {
  update: Record<string, unknown>;
  replay: boolean;
  delivered: boolean;
}

interface Poll {
  offset: number | undefined;
  response: ServerResponse;
  timer: NodeJS.Timeout;
}

function respond(response: ServerResponse, status: number, body: unknown): void {
  if (response.writableEnded) return;
  response.writeHead(status, { 'Content-Type': 'application/json' });
  response.end(JSON.stringify(body));
}

/** Call at the top of a test file: each stand-in is closed after its test. */
export function botApisPerTest(): (token: string) => Promise<BotApiStandIn> {
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((close) => close()));
  });
  return async (token) => {
    const api = await botApi(token);
    closers.push(api.close);
    return api;
  };
}

export async function botApi(token: string): Promise<BotApiStandIn & { close(): Promise<void> }> {
  const calls: Call[] = [];
  const queue: Queued[] = [];
  const failures: { method: string; status: number; body: Record<string, unknown>; times: number }[] = [];
  let nextId = 731_000_100;
  let nextMessage = 9000;
  let waiting: Poll | undefined;
  const idlers: (() => void)[] = [];
  const deliveries: { id: number; resolve: () => void }[] = [];
  const handedOut = new Set<number>();

  const deliverable = (offset: number | undefined) =>
    queue.filter((q) => (q.replay ? !q.delivered : offset === undefined || (q.update.update_id as number) >= offset));
  const confirm = (offset: number | undefined) => {
    for (let i = queue.length - 1; i >= 0; i -= 1) {
      const q = queue[i]!;
      const confirmed = offset !== undefined && (q.update.update_id as number) < offset;
      if ((q.replay && q.delivered) || (!q.replay && q.delivered && confirmed)) queue.splice(i, 1);
    }
  };
  const answerPoll = (poll: Poll) => {
    clearTimeout(poll.timer);
    if (waiting === poll) waiting = undefined;
    if (poll.response.writableEnded || poll.response.destroyed) return;
    const batch = deliverable(poll.offset).slice(0, 100);
    for (const q of batch) {
      q.delivered = true;
      handedOut.add(q.update.update_id as number);
    }
    for (const waiter of deliveries.filter((d) => batch.some((q) => q.update.update_id === d.id))) {
      deliveries.splice(deliveries.indexOf(waiter), 1);
      waiter.resolve();
    }
    respond(poll.response, 200, { ok: true, result: batch.map((q) => q.update) });
  };

  const getUpdates = (params: Record<string, unknown>, response: ServerResponse) => {
    const offset = typeof params.offset === 'number' ? params.offset : undefined;
    confirm(offset);
    if (queue.every((q) => q.delivered) && queue.length === 0) for (const idle of idlers.splice(0)) idle();
    const poll: Poll = {
      offset,
      response,
      timer: setTimeout(() => answerPoll(poll), Math.min(Number(params.timeout ?? 0), 30) * 1000),
    };
    // A poll the bot gave up (it stopped) is forgotten: nothing is delivered into a closed connection.
    response.on('close', () => {
      clearTimeout(poll.timer);
      if (waiting === poll) waiting = undefined;
    });
    if (deliverable(offset).length > 0) answerPoll(poll);
    else waiting = poll;
  };

  const methods: Record<string, (params: Record<string, unknown>, response: ServerResponse) => void> = {
    getMe: (_params, response) => respond(response, 200, answers.getMe),
    getUpdates,
    sendMessage: (params, response) =>
      respond(response, 200, {
        ok: true,
        result: {
          message_id: (nextMessage += 1),
          from: (answers.getMe as { result: unknown }).result,
          chat: { id: params.chat_id, type: Number(params.chat_id) < 0 ? 'supergroup' : 'private' },
          date: Math.floor(Date.now() / 1000),
          text: params.text,
          ...(params.reply_markup ? { reply_markup: params.reply_markup } : {}),
        },
      }),
    answerCallbackQuery: (_params, response) => respond(response, 200, { ok: true, result: true }),
    editMessageReplyMarkup: (params, response) =>
      respond(response, 200, { ok: true, result: { message_id: params.message_id, chat: { id: params.chat_id } } }),
  };

  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      const match = /^\/bot([^/]+)\/(\w+)$/.exec(request.url ?? '');
      if (!match || match[1] !== token) return respond(response, 401, answers.unauthorized);
      const method = match[2]!;
      const params = (body === '' ? {} : JSON.parse(body)) as Record<string, unknown>;
      calls.push({ method, params });
      const failure = failures.find((f) => f.method === method && f.times > 0);
      if (failure) {
        failure.times -= 1;
        return respond(response, failure.status, failure.body);
      }
      const handler = methods[method];
      if (!handler) return respond(response, 404, answers.notFound);
      handler(params, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    of: (method) => calls.filter((call) => call.method === method).map((call) => call.params),
    texts: () => calls.filter((call) => call.method === 'sendMessage').map((call) => String(call.params.text)),
    push(update, options = {}) {
      const id = typeof update.update_id === 'number' ? update.update_id : (nextId += 1);
      queue.push({ update: { ...update, update_id: id }, replay: options.replay === true, delivered: false });
      if (waiting && deliverable(waiting.offset).length > 0) answerPoll(waiting);
      return id;
    },
    idle: () => new Promise((resolve) => idlers.push(resolve)),
    delivered: (id) => new Promise((resolve) => (handedOut.has(id) ? resolve() : deliveries.push({ id, resolve }))),
    fail(method, status, body, times = 1) {
      failures.push({ method, status, body, times });
    },
    close: () =>
      new Promise((resolve) => {
        if (waiting) clearTimeout(waiting.timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
