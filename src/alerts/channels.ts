// Alert channels: each turns one message into one delivery (webhook POST, Telegram sendMessage, an email)
// and throws on failure. What to say, when, and retries live in notifier.ts.
import { createHmac } from 'node:crypto';
import nodemailer from 'nodemailer';
import type { AlertEvent } from './problems.js';
import type { AlertsConfig } from './config.js';
import { redact } from '../secrets.js';

export interface AlertMessage {
  at: string;
  /** Health level after the build that raised it. */
  level: string;
  events: AlertEvent[];
  text: string;
}

export interface Channel {
  name: 'webhook' | 'telegram' | 'email';
  send(message: AlertMessage): Promise<void>;
}

type Env = Readonly<Record<string, string | undefined>>;

const timeoutMs = 10_000;

/** An error text with every secret replaced, so a failing channel can be logged. */
const scrub = (text: string, secrets: readonly (string | undefined)[]) => redact(text, ...secrets);

async function post(url: string, body: string, headers: Record<string, string>, fetcher: typeof fetch, secrets: readonly (string | undefined)[]): Promise<void> {
  let response: Response;
  try {
    response = await fetcher(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers }, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    throw new Error(scrub(`${(error as Error).message}${(error as { cause?: Error }).cause ? `: ${(error as { cause: Error }).cause.message}` : ''}`, secrets));
  }
  await response.arrayBuffer().catch(() => undefined);
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
}

export function createChannels(config: AlertsConfig, env: Env, fetcher: typeof fetch = globalThis.fetch): Channel[] {
  const channels: Channel[] = [];
  const { webhook, telegram, email } = config;
  if (webhook) {
    const secret = webhook.secretEnv ? env[webhook.secretEnv] : undefined;
    channels.push({
      name: 'webhook',
      send: (message) => {
        const body = JSON.stringify({ type: 'ratefile.alert', at: message.at, level: message.level, events: message.events });
        const signature = secret ? { 'X-Ratefile-Signature': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` } : {};
        return post(webhook.url, body, signature, fetcher, [secret]);
      },
    });
  }
  if (telegram) {
    const token = env[telegram.tokenEnv];
    const chatId = env[telegram.chatIdEnv];
    channels.push({
      name: 'telegram',
      send: async (message) => {
        if (!token || !chatId) throw new Error(`${telegram.tokenEnv} and ${telegram.chatIdEnv} must be set`);
        const url = `${telegram.baseUrl.replace(/\/$/, '')}/bot${token}/sendMessage`;
        await post(url, JSON.stringify({ chat_id: chatId, text: message.text }), {}, fetcher, [token]);
      },
    });
  }
  if (email) {
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
    channels.push({
      name: 'email',
      send: async (message) => {
        const first = message.events[0];
        const subject = `ratefile ${message.level}: ${first ? first.text.slice(0, 120) : 'alert'}${message.events.length > 1 ? ` (+${message.events.length - 1})` : ''}`;
        try {
          await transport.sendMail({ from: email.from, to: email.to, subject, text: message.text });
        } catch (error) {
          throw new Error(scrub((error as Error).message, [user, pass]));
        }
      },
    });
  }
  return channels;
}
