import { testStream } from './contract.js';

const json = (text: string) => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

testStream({
  type: 'binance',
  pairs: ['BTC/USDT', 'ETH/USDT'],
  symbols: ['btcusdt@bookTicker', 'ethusdt@bookTicker'],
  subscribed: (text) => {
    const body = json(text);
    return body?.method === 'SUBSCRIBE' && Array.isArray(body.params) ? body.params.map(String) : undefined;
  },
  requestId: (text) => String(json(text)?.id),
  streamed: [
    { pair: 'BTC/USDT', bid: '97021.40000000', ask: '97021.41000000' },
    { pair: 'ETH/USDT', bid: '3121.05000000', ask: '3121.06000000' },
  ],
  firstTick: { bid: '97020.10000000', ask: '97020.11000000' },
  rest: {
    path: '/api/v3/ticker/bookTicker',
    fixture: 'binance/bookTicker.json',
    prices: [
      { pair: 'BTC/USDT', bid: '97012.30000000', ask: '97012.31000000' },
      { pair: 'ETH/USDT', bid: '3120.45000000', ask: '3120.46000000' },
    ],
  },
  // Binance refuses a request, not a symbol: both pairs were in the one request.
  refused: ['BTC/USDT', 'ETH/USDT'],
  closing: 'shutdown.jsonl',
});
