// What an export holds once selected: its items, every value already the exact text to publish. The selection
// (select.ts) makes them; the renderers, the checker and the dashboard read them.
import type { ExportFormat } from './formats.js';

/** One `<item>` of an export: every value already the exact text to publish. Optional fields only when set. */
export interface ExportItem {
  from: string;
  to: string;
  in: string;
  out: string;
  amount: string;
  minfee?: string | undefined;
  fromfee?: string | undefined;
  tofee?: string | undefined;
  minamount?: string | undefined;
  maxamount?: string | undefined;
  floating?: string | undefined;
  delay?: string | undefined;
  param?: string | undefined;
  city?: string | undefined;
  url?: string | undefined;
  /** EREF 1.1 only: the limits in the to currency at the published rate (tomin rounded up, tomax down). */
  tomin?: string;
  tomax?: string;
  /** EREF 1.1 only: the amount tiers (`tiers:`), each with its range in the from currency and its rate. */
  steps?: ExportStep[];
}

/** One amount tier as published: orders from `frommin` to `frommax` (from currency) get `in`:`out`. */
export interface ExportStep {
  frommin: string;
  frommax: string;
  in: string;
  out: string;
}

/** The element order every monitor parses (estandards / Premium order), plus our `url` last. */
export const itemElements = [
  'from',
  'to',
  'in',
  'out',
  'amount',
  'minfee',
  'fromfee',
  'tofee',
  'minamount',
  'maxamount',
  'floating',
  'delay',
  'param',
  'city',
  'url',
] as const satisfies readonly (keyof ExportItem)[];

/** One line of a Premium file (premium.ts): its title, and the rate and reserve when the direction is published. */
export interface PremiumLine {
  title: string;
  in?: string;
  out?: string;
  amount?: string;
}

export interface ExportModel {
  name: string;
  file: string;
  /** Absent: classic. */
  format?: ExportFormat;
  items: ExportItem[];
  /** Premium formats only: a line per direction the template selects, in config order, published or not. */
  lines?: PremiumLine[];
}
