import { testStream } from './contract.js';

const json = (text: string) => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

testStream({
  type: 'okx',
  pairs: ['BTC/USDT', 'ETH/USDT'],
  symbols: ['BTC-USDT', 'ETH-USDT'],
  subscribed: (text) => {
    const body = json(text);
    if (body?.op !== 'subscribe' || !Array.isArray(body.args)) return undefined;
    return body.args.map((arg) => `${(arg as Record<string, unknown>).instId}`);
  },
  requestId: (text) => String(json(text)?.id),
  isPing: (text) => text === 'ping',
  streamed: [
    { pair: 'BTC/USDT', bid: '97021.4', ask: '97021.5' },
    { pair: 'ETH/USDT', bid: '3121.05', ask: '3121.06' },
  ],
  firstTick: { bid: '97020.1', ask: '97020.2' },
  rest: {
    path: '/api/v5/market/tickers',
    fixture: 'okx/tickers-spot.json',
    prices: [
      { pair: 'BTC/USDT', bid: '97012.3', ask: '97012.4' },
      { pair: 'ETH/USDT', bid: '3120.46', ask: '3120.47' },
    ],
  },
  refused: ['ETH/USDT'],
  closing: 'notice.jsonl',
});
