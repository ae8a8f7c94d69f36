// The export formats a template may name (`format:`), their file extensions and the content type they are served with.

/** The formats monitors read (a monitor profile names these); the premium ones are for the exchanger's own engine. */
export const monitorFormats = ['classic', 'eref-1.1', 'json'] as const;
export const exportFormats = [...monitorFormats, 'premium-rates', 'premium-reserves'] as const;
export type ExportFormat = (typeof exportFormats)[number];
export type MonitorFormat = (typeof monitorFormats)[number];

/** The files Premium Exchanger's "rate from file" and "reserve from file" modules read: a line per direction. */
export type PremiumFormat = Extract<ExportFormat, 'premium-rates' | 'premium-reserves'>;

export function isPremiumFormat(format: ExportFormat | undefined): format is PremiumFormat {
  return format === 'premium-rates' || format === 'premium-reserves';
}

/** The extension a format's file must have: the XML formats `.xml`, JSON `.json`, Premium's text files `.txt`. */
export function formatExtension(format: ExportFormat): 'xml' | 'json' | 'txt' {
  return format === 'json' ? 'json' : isPremiumFormat(format) ? 'txt' : 'xml';
}

/**
 * An export file name as ratefile writes, serves, records and removes it: no folder, no dotfile, `.xml`, `.json` or
 * `.txt`. One pattern for the server, the state record, removal and S3, so a name one of them accepts all accept.
 */
export const exportFileName = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(xml|json|txt)$/;

/**
 * The content type an export is served and uploaded with, by its extension. EREF 1.1 requires application/xml;
 * JSON is UTF-8 by definition (RFC 8259), and application/json defines no charset parameter, so none is sent.
 */
export function contentTypeOf(file: string): 'application/xml' | 'application/json' | 'text/plain; charset=utf-8' {
  if (file.endsWith('.txt')) return 'text/plain; charset=utf-8';
  return file.endsWith('.json') ? 'application/json' : 'application/xml';
}
