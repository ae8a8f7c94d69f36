// A tiny logger: one line per event, timestamped, written to an injectable stream.

export interface Writer {
  write(text: string): unknown;
}

export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function createLogger(out: Writer, now: () => Date = () => new Date()): Logger {
  const line = (level: string, message: string) => out.write(`${now().toISOString()} ${level} ${message}\n`);
  return {
    info: (message) => line('info', message),
    warn: (message) => line('warn', message),
    error: (message) => line('error', message),
  };
}
