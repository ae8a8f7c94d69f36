// What the control bot reads of the Bot API's objects (https://core.telegram.org/bots/api#update): an Update
// carries at most one of message, edited_message, callback_query…; the fields below are the ones authorisation
// looks at. Everything comes from outside: each field is checked for its type where it is read. Pure.

export interface TgUser {
  id: number;
  is_bot?: boolean;
  first_name?: string;
  username?: string;
}

export interface TgChat {
  id: number;
  type: string;
}

export interface TgMessage {
  message_id: number;
  /** Unix time, seconds. */
  date: number;
  chat: TgChat;
  from?: TgUser;
  /** Sent on behalf of a chat (an anonymous admin, a channel): `from` is then a stand-in user. */
  sender_chat?: TgChat;
  text?: string;
  /** Bot API 7.0+: where a forwarded message came from. */
  forward_origin?: unknown;
  /** Before 7.0: when a forwarded message was first sent. */
  forward_date?: number;
  forward_from?: unknown;
  forward_from_chat?: unknown;
  is_automatic_forward?: boolean;
  via_bot?: TgUser;
  edit_date?: number;
}

export interface TgCallbackQuery {
  id: string;
  from: TgUser;
  message?: TgMessage;
  data?: string;
}

export interface TgUpdate {
  update_id: number;
  message?: TgMessage;
  edited_message?: TgMessage;
  channel_post?: TgMessage;
  edited_channel_post?: TgMessage;
  callback_query?: TgCallbackQuery;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const isId = (value: unknown): value is number => Number.isSafeInteger(value);

/** An update as the API sent it, or undefined when it has no whole-number `update_id` (not one to act on). */
export function asUpdate(value: unknown): TgUpdate | undefined {
  return isObject(value) && isId(value.update_id) ? (value as unknown as TgUpdate) : undefined;
}

/** A user with a whole-number id, or undefined. */
export function userOf(value: unknown): TgUser | undefined {
  return isObject(value) && isId(value.id) ? (value as unknown as TgUser) : undefined;
}

/** A message with the fields authorisation needs (id, date, chat with an id), or undefined. */
export function messageOf(value: unknown): TgMessage | undefined {
  if (!isObject(value) || !isId(value.message_id) || typeof value.date !== 'number') return undefined;
  const chat = value.chat;
  return isObject(chat) && isId(chat.id) && typeof chat.type === 'string' ? (value as unknown as TgMessage) : undefined;
}

/** Whether a message was forwarded, in any of the ways the Bot API has said it over its versions. */
export const isForwarded = (message: TgMessage): boolean =>
  message.forward_origin !== undefined ||
  message.forward_date !== undefined ||
  message.forward_from !== undefined ||
  message.forward_from_chat !== undefined ||
  message.is_automatic_forward === true;
