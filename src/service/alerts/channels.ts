// Alert channels: each turns one message into one delivery (webhook POST, Telegram sendMessage, an email)
// and throws on failure. What to say, when, and retries live in notifier.ts. Every delivery carries the message's id
// (webhook body and headers, email Message-ID, Telegram text), so a receiver can tell a retry from a new alert.
import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { AlertEvent } from './problems.js';
import type { AlertsConfig } from '../../model/alerts.js';
import { redact } from '../../base/secrets.js';
import { BotApiError, callBotApi } from '../../io/telegram/bot-api.js';

export interface AlertMessage {
  /** Unique per message and the same on every channel and every retry (a UUID). */
  id: string;
  at: string;
  /** Health level after the build that raised it. */
  level: string;
  events: AlertEvent[];
  text: string;
}

export type ChannelName = 'webhook' | 'telegram' | 'email';

export interface Channel {
  name: ChannelName;
  /** Throws on failure: `RejectedAlert` when the receiver refuses this message itself (retrying cannot help). */
  send(message: AlertMessage, signal?: AbortSignal): Promise<void>;
}

/** The receiver answered that this message is wrong (HTTP 400, 413, 422; SMTP 552, 554), not that it is unavailable. */
export class RejectedAlert extends Error {}

export interface ChannelOptions {
  /** How long one delivery may take (default 10 s). */
  timeoutMs?: number;
  /** The inline keyboard a Telegram message carries (the control bot's buttons, src/service/control/buttons.ts). */
  telegramButtons?: ((message: AlertMessage) => Record<string, unknown> | undefined) | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

const rejectedHttp = new Set([400, 413, 422]);
const rejectedSmtp = new Set([552, 554]);

/** An error text with every secret replaced, so a failing channel can be logged. */
const scrub = (text: string, secrets: readonly (string | undefined)[]) => redact(text, ...secrets);

interface Post {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  signal: AbortSignal | undefined;
}

async function post(
  { url, body, headers, timeoutMs, signal }: Post,
  fetcher: typeof fetch,
  secrets: readonly (string | undefined)[],
): Promise<void> {
  let response: Response;
  const timeout = AbortSignal.timeout(timeoutMs);
  try {
    response = await fetcher(url, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', ...headers },
      signal: signal ? AbortSignal.any([timeout, signal]) : timeout,
    });
  } catch (error) {
    throw new Error(
      scrub(
        `${(error as Error).message}${(error as { cause?: Error }).cause ? `: ${(error as { cause: Error }).cause.message}` : ''}`,
        secrets,
      ),
    );
  }
  await response.arrayBuffer().catch(() => undefined);
  if (rejectedHttp.has(response.status)) throw new RejectedAlert(`HTTP ${response.status}`);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

/** The channels the config names, in this order: webhook, telegram, email. */
export function createChannels(
  config: AlertsConfig,
  env: Env,
  fetcher: typeof fetch = globalThis.fetch,
  options: ChannelOptions = {},
): Channel[] {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const { webhook, telegram, email } = config;
  return [
    ...(webhook ? [webhookChannel(webhook, env, fetcher, timeoutMs)] : []),
    ...(telegram ? [telegramChannel(telegram, env, fetcher, { timeoutMs, buttons: options.telegramButtons })] : []),
    ...(email ? [emailChannel(email, env, timeoutMs)] : []),
  ];
}

function webhookChannel(
  webhook: NonNullable<AlertsConfig['webhook']>,
  env: Env,
  fetcher: typeof fetch,
  timeoutMs: number,
): Channel {
  const secret = webhook.secretEnv ? env[webhook.secretEnv] : undefined;
  return {
    name: 'webhook',
    send: (message, signal) => {
      const body = JSON.stringify({
        type: 'ratefile.alert',
        id: message.id,
        at: message.at,
        level: message.level,
        events: message.events.map(({ kind, key, text }) => ({ kind, key, text })),
      });
      const signature = secret
        ? { 'X-Ratefile-Signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` }
        : {};
      const headers = { 'X-Ratefile-Alert-Id': message.id, 'Idempotency-Key': message.id, ...signature };
      return post({ url: webhook.url, body, headers, timeoutMs, signal }, fetcher, [secret]);
    },
  };
}

function telegramChannel(
  telegram: NonNullable<AlertsConfig['telegram']>,
  env: Env,
  fetcher: typeof fetch,
  options: { timeoutMs: number; buttons: ChannelOptions['telegramButtons'] },
): Channel {
  const token = env[telegram.tokenEnv];
  const chatId = env[telegram.chatIdEnv];
  return {
    name: 'telegram',
    send: async (message, signal) => {
      if (!token || !chatId) throw new Error(`${telegram.tokenEnv} and ${telegram.chatIdEnv} must be set`);
      const markup = options.buttons?.(message);
      const api = { baseUrl: telegram.baseUrl, token, fetch: fetcher, timeoutMs: options.timeoutMs };
      const text = `${message.text}\n\nalert ${message.id}`;
      try {
        await callBotApi(
          api,
          'sendMessage',
          { chat_id: chatId, text, ...(markup ? { reply_markup: markup } : {}) },
          {
            signal,
          },
        );
      } catch (error) {
        const status = error instanceof BotApiError ? error.status : undefined;
        throw status !== undefined && rejectedHttp.has(status) ? new RejectedAlert((error as Error).message) : error;
      }
    },
  };
}

function emailChannel(email: NonNullable<AlertsConfig['email']>, env: Env, timeoutMs: number): Channel {
  const user = email.userEnv ? env[email.userEnv] : undefined;
  const pass = email.passwordEnv ? env[email.passwordEnv] : undefined;
  const transport = nodemailer.createTransport({
    host: email.host,
    port: email.port,
    secure: email.secure,
    ...(user ? { auth: { user, pass: pass ?? '' } } : {}),
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  return {
    name: 'email',
    send: async (message) => {
      const first = message.events[0];
      const subject = `ratefile ${message.level}: ${first ? first.text.slice(0, 120) : 'alert'}${message.events.length > 1 ? ` (+${message.events.length - 1})` : ''}`;
      try {
        await transport.sendMail({
          from: email.from,
          to: email.to,
          subject,
          text: message.text,
          messageId: `<${message.id}@ratefile>`,
          headers: { 'X-Ratefile-Alert-Id': message.id },
        });
      } catch (error) {
        const text = scrub((error as Error).message, [user, pass]);
        throw rejectedSmtp.has((error as { responseCode?: number }).responseCode ?? 0)
          ? new RejectedAlert(text)
          : new Error(text);
      }
    },
  };
}
