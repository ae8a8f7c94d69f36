// The `alerts:` block of the config: channels and the reminder interval. Secrets are never in the file:
// each is the name of an environment variable.
import { z } from 'zod';
import { duration } from '../base/config/fields.js';

export const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, { error: 'expected an environment variable name like "RATEFILE_WEBHOOK_SECRET"' });
export const url = z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' });

export const alertsSchema = z
  .strictObject({
    reminder: duration
      .default(3_600_000)
      .describe('While a problem lasts, it is reported again this often (default 1h).'),
    webhook: z
      .strictObject({
        url: url.describe('Where each alert is POSTed as JSON.'),
        secretEnv: envName
          .optional()
          .describe(
            'Environment variable holding the HMAC-SHA256 key; the body is signed in X-Ratefile-Signature: sha256=<hex>.',
          ),
      })
      .optional(),
    telegram: z
      .strictObject({
        tokenEnv: envName.default('TELEGRAM_BOT_TOKEN').describe('Environment variable holding the bot token.'),
        chatIdEnv: envName.default('TELEGRAM_CHAT_ID').describe('Environment variable holding the chat id.'),
        baseUrl: url
          .default('https://api.telegram.org')
          .describe('Bot API base URL (tests point it at a loopback server).'),
      })
      .optional(),
    email: z
      .strictObject({
        host: z.string().min(1).describe('SMTP server.'),
        port: z.int().min(1).max(65535).default(587),
        secure: z.boolean().default(false).describe('TLS from the start (port 465); otherwise STARTTLS when offered.'),
        from: z.string().min(3),
        to: z.array(z.string().min(3)).min(1),
        userEnv: envName.optional().describe('Environment variable holding the SMTP user.'),
        passwordEnv: envName.optional().describe('Environment variable holding the SMTP password.'),
      })
      .optional(),
  })
  .optional()
  .describe('Alerts to the operator: webhook, Telegram, email.');

export type AlertsConfig = NonNullable<z.output<typeof alertsSchema>>;
