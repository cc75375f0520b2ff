import { ApiError } from '../../errors/api-error.js';
import { BlobTooLarge, BlobWriter, discardStaged, type StagedBlob } from './file-store.js';

/**
 * One part of a multipart/form-data body, as the HTTP layer hands it over (the
 * domain does not know the multipart library). Reading `content` may throw an
 * ApiError for a malformed body.
 */
export type FormPart =
  | { kind: 'field'; name: string; value: string }
  | { kind: 'file'; name: string; filename: string | null; content: AsyncIterable<Uint8Array> };

export interface UploadForm {
  /** The `file` part, staged on disk; the caller commits or discards it. */
  file: StagedBlob & { filename: string | null };
  fields: Map<string, string>;
}

async function drain(content: AsyncIterable<Uint8Array>): Promise<void> {
  for await (const _ of content) {
    // Reading to the end lets the parser reach the next part and the client finish sending.
  }
}

/** `C:\fakepath\list.csv` (old browsers) -> `list.csv`; control characters dropped; at most 255 characters. */
export function cleanFilename(raw: string | null | undefined): string | null {
  if (raw === null || raw === undefined) return null;
  const base = raw.split(/[/\\]/).pop() ?? '';
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 255);
  return clean === '' ? null : clean;
}

/**
 * Reads a whole form: one `file` part streamed to a temp blob (never held in
 * memory) and the named text fields. Every part is read to the end even after
 * a problem, so the client gets the error instead of a reset connection; the
 * first problem is thrown at the end.
 */
export async function readUploadForm(
  parts: AsyncIterable<FormPart>,
  opts: { dataDir: string; maxBytes: number; fields: readonly string[] },
): Promise<UploadForm> {
  let file: UploadForm['file'] | undefined;
  const fields = new Map<string, string>();
  let problem: ApiError | undefined;
  try {
    for await (const part of parts) {
      if (part.kind === 'field') {
        if (part.name === 'file') {
          problem ??= new ApiError('invalid_type', 'file must be a file part (a form field with a filename), not a text field.', { param: 'file' });
        } else if (!opts.fields.includes(part.name)) {
          problem ??= new ApiError('unknown_parameter', `Unknown parameter: ${part.name}.`, { param: part.name });
        } else if (fields.has(part.name)) {
          problem ??= new ApiError('invalid_value', `${part.name} was sent more than once.`, { param: part.name });
        } else {
          fields.set(part.name, part.value);
        }
        continue;
      }
      if (part.name !== 'file' || file !== undefined || problem !== undefined) {
        await drain(part.content);
        if (part.name !== 'file') problem ??= new ApiError('unknown_parameter', `Unknown parameter: ${part.name}.`, { param: part.name });
        else if (file !== undefined) problem ??= new ApiError('invalid_value', 'Send exactly one file part.', { param: 'file' });
        continue;
      }
      const writer = await BlobWriter.create(opts.dataDir, opts.maxBytes);
      let tooLarge = false;
      try {
        // No break out of this loop: leaving it early would destroy the part mid-body.
        for await (const chunk of part.content) {
          if (tooLarge) continue;
          try {
            await writer.write(chunk);
          } catch (err) {
            if (!(err instanceof BlobTooLarge)) throw err;
            tooLarge = true;
          }
        }
      } catch (err) {
        await writer.discard();
        throw err;
      }
      if (tooLarge) {
        await writer.discard();
        problem ??= new ApiError('request_too_large', `file is larger than the ${opts.maxBytes}-byte upload limit.`, { param: 'file' });
      } else {
        file = { ...(await writer.finish()), filename: cleanFilename(part.filename) };
      }
    }
    if (problem) throw problem;
    if (file === undefined) throw new ApiError('missing_required_parameter', 'Missing required parameter: file.', { param: 'file' });
    return { file, fields };
  } catch (err) {
    if (file) await discardStaged(file);
    throw err;
  }
}
