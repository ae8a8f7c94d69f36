import { testStream } from './contract.js';

const json = (text: string) => {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
};

testStream({
  type: 'bybit',
  pairs: ['BTC/USDT', 'ETH/USDT'],
  symbols: ['orderbook.1.BTCUSDT', 'orderbook.1.ETHUSDT'],
  subscribed: (text) => {
    const body = json(text);
    return body?.op === 'subscribe' && Array.isArray(body.args) ? body.args.map(String) : undefined;
  },
  requestId: (text) => String(json(text)?.req_id),
  isPing: (text) => json(text)?.op === 'ping',
  streamed: [
    { pair: 'BTC/USDT', bid: '97021.4', ask: '97021.5' },
    { pair: 'ETH/USDT', bid: '3121.05', ask: '3121.06' },
  ],
  firstTick: { bid: '97020.1', ask: '97020.2' },
  rest: {
    path: '/v5/market/tickers',
    fixture: 'bybit/tickers-spot.json',
    prices: [
      { pair: 'BTC/USDT', bid: '97012.3', ask: '97012.4' },
      { pair: 'ETH/USDT', bid: '3120.44', ask: '3120.45' },
    ],
  },
  refused: ['ETH/USDT'],
});
