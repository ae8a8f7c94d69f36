// The export formats a template may name (`format:`), their file extensions and the content type they are served with.

export const exportFormats = ['classic', 'eref-1.1', 'json'] as const;
export type ExportFormat = (typeof exportFormats)[number];

/** The extension a format's file must have: the XML formats `.xml`, JSON `.json`. */
export function formatExtension(format: ExportFormat): 'xml' | 'json' {
  return format === 'json' ? 'json' : 'xml';
}

/**
 * An export file name as ratefile writes, serves, records and removes it: no folder, no dotfile, `.xml` or `.json`.
 * One pattern for the server, the state record, removal and S3, so a name one of them accepts all accept.
 */
export const exportFileName = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(xml|json)$/;

/**
 * The content type an export is served and uploaded with, by its extension. EREF 1.1 requires application/xml;
 * JSON is UTF-8 by definition (RFC 8259), and application/json defines no charset parameter, so none is sent.
 */
export function contentTypeOf(file: string): 'application/xml' | 'application/json' {
  return file.endsWith('.json') ? 'application/json' : 'application/xml';
}
