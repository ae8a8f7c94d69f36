// The rate an export publishes for a direction: its markup applied, the published form, and its text per rate object. Pure.
import { Decimal, formatDecimal } from '../decimal.js';
import type { Currency } from '../model.js';
import { publishedForm, publishedRate } from '../pricing/published.js';
import type { PricedDirection, PublishedRate } from '../priced.js';

/** The in/out an export with `markup` publishes for a direction rate: the one rounding every export and the dashboard use. */
export function exportRate(rate: Decimal, from: Currency, to: Currency, markup: Decimal): PublishedRate {
  return rateAtFactor(rate, from, to, markupFactor(markup));
}

/** What a rate is multiplied by for the client under `markup`: 1 − markup; undefined without a markup. */
const markupFactor = (markup: Decimal): Decimal | undefined =>
  markup.isZero() ? undefined : new Decimal(1).minus(markup);

/** Without a markup the form is pricing's own (shared, so are the limits computed at it). */
function rateAtFactor(rate: Decimal, from: Currency, to: Currency, factor: Decimal | undefined): PublishedRate {
  return factor === undefined ? publishedForm(rate, from, to) : publishedRate(rate.times(factor), from, to);
}

/** A rate as an export publishes it, as numbers and text: one object per distinct rate, precisions and markup in a build. */
export interface RateEntry {
  in: string;
  out: string;
  form: PublishedRate;
}

/**
 * The published in/out of a rate after a markup, as numbers and text. Directions that share an asset pair and
 * margin share one rate object (see priceDirections), so the decimal work is done once per distinct rate,
 * not per direction; without a markup the form is pricing's own, so are the limits computed at it.
 */
export class RateText {
  private readonly byRate = new WeakMap<Decimal, Map<number, RateEntry>>();
  /** What a rate is multiplied by for the client: 1 − markup; undefined without a markup. */
  private readonly factor: Decimal | undefined;

  /** One per markup: exports with the same markup share it. */
  constructor(markup: Decimal) {
    this.factor = markupFactor(markup);
  }

  /** Any rate of a direction (a tier's) in its published form at this markup (as exportRate, with the factor made once). */
  formOf(rate: Decimal, from: Currency, to: Currency): PublishedRate {
    return rateAtFactor(rate, from, to, this.factor);
  }

  of(priced: PricedDirection): RateEntry {
    const { from, to } = priced.direction;
    let forRate = this.byRate.get(priced.rate);
    if (!forRate) this.byRate.set(priced.rate, (forRate = new Map()));
    // Precisions are 0..18: one number names the pair.
    const key = from.ratePrecision * 32 + to.ratePrecision;
    let text = forRate.get(key);
    if (!text) {
      const form = this.formOf(priced.rate, from, to);
      text = { in: formatDecimal(form.in), out: formatDecimal(form.out), form };
      forRate.set(key, text);
    }
    return text;
  }
}
