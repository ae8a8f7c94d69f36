// Plain HTTP requests for integration tests: node:http sends the path exactly as given (fetch would
// normalize `/../x` away), and the whole body comes back as bytes.
import { request, type Agent, type IncomingHttpHeaders } from 'node:http';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface RawRequest {
  port: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  agent?: Agent;
  timeoutMs?: number;
}

export function rawRequest(options: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(options.agent ? { agent: options.agent } : {}),
        timeout: options.timeoutMs ?? 5_000,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          // A response cut short (the server destroyed the socket) is a failure, not a short body.
          if (!response.complete) reject(new Error(`incomplete response for ${options.path}`));
          else resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`request for ${options.path} timed out`)));
    req.on('error', reject);
    req.end();
  });
}

/** Poll `probe` every `intervalMs` until it returns a value, or throw after `timeoutMs` with the last reason. */
export async function pollUntil<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 150,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
