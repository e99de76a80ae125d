/**
 * `--jq` and `--fields`, an output mode of the writer (output/writer.ts): the command writes its JSON
 * document (compact) as always; the writer keeps it and, once the command succeeded, hands it to the
 * transform made here, and writes what that returns. A list cut to `--fields` without jq is not kept: its
 * list writer cuts each record as it writes it, straight to the writer's destination (output/fields.ts
 * setFieldsSink, output/records.ts), so an export streams. The jq expression is checked when the capture is
 * prepared, before the command runs (a syntax error is exit 2, nothing sent). On a terminal jq's lines have
 * their unsafe characters shown escaped (output/sanitize.ts); piped, raw strings stay exact.
 */
import type { GlobalOptions } from '../context.js';
import { type ColumnValues, type FieldsSink, pickFields, setFieldsSink } from './fields.js';
import type { OutStream } from './iostreams.js';
import { escapeUnsafe } from './sanitize.js';

/** What the writer shows instead of the document the command wrote; `tty`: it goes to a terminal. */
export type OutputTransform = (document: string, tty: boolean) => Promise<string>;

/** The writer's streams: the one commands write to (kept), and its destination (`direct`). */
export interface CaptureStreams {
  captured: OutStream;
  direct: OutStream;
}

/** Made by the writer when it opens, from its streams. */
export type OutputCapture = (streams: CaptureStreams) => OutputTransform;

/** The capture of `--jq`/`--fields`, or undefined when neither was given. */
export async function outputCapture(
  globals: Pick<GlobalOptions, 'jq' | 'fields' | 'fieldsFormat'>,
  columns?: ColumnValues,
): Promise<OutputCapture | undefined> {
  const { jq, fields, fieldsFormat } = globals;
  if (jq === undefined && fields === undefined) return undefined;
  const filter = jq === undefined ? undefined : await (await import('./jq.js')).loadJqFilter(jq);
  return ({ captured, direct }) => {
    const sink: FieldsSink | undefined =
      fields !== undefined && filter === undefined && fieldsFormat !== undefined
        ? { out: direct, fields, format: fieldsFormat, streamed: false, columns }
        : undefined;
    if (sink) setFieldsSink(captured, sink);
    return async (document, tty) => {
      // A list already written cut to its fields: what else was written (nothing, as a rule) goes as is.
      if (sink?.streamed) return document;
      if (sink) {
        return (await import('./records.js')).fieldsDocument(
          document,
          sink.fields,
          sink.format,
          tty,
          columns,
        );
      }
      const text =
        fields === undefined
          ? document
          : JSON.stringify(pickFields(JSON.parse(document), fields, columns).document);
      const result = filter!.run(text);
      return tty ? result.split('\n').map(escapeUnsafe).join('\n') : result;
    };
  };
}
