import { testStream } from './contract.js';

const json = (text: string) => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

testStream({
  type: 'kraken',
  pairs: ['BTC/USD', 'ETH/USD'],
  symbols: ['BTC/USD', 'ETH/USD'],
  subscribed: (text) => {
    const body = json(text);
    const params = body?.params as Record<string, unknown> | undefined;
    return body?.method === 'subscribe' && Array.isArray(params?.symbol) ? params.symbol.map(String) : undefined;
  },
  requestId: (text) => String(json(text)?.req_id),
  isPing: (text) => json(text)?.method === 'ping',
  streamed: [
    { pair: 'BTC/USD', bid: '97021.4', ask: '97021.5' },
    { pair: 'ETH/USD', bid: '3121.05', ask: '3121.06' },
  ],
  firstTick: { bid: '97020.1', ask: '97020.2' },
  rest: {
    path: '/0/public/Ticker',
    fixture: 'kraken/ticker.json',
    prices: [
      { pair: 'BTC/USD', bid: '97012.30000', ask: '97012.40000' },
      { pair: 'ETH/USD', bid: '3120.47000', ask: '3120.48000' },
    ],
  },
  refused: ['ETH/USD'],
});
