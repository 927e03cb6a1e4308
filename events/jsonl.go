package events

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLineBytes bounds one JSONL line; longer lines are rejected, not truncated.
const MaxLineBytes = 4 << 20

// LineError is a decoding failure at one line of a JSONL log.
type LineError struct {
	Line  int    // 1-based
	Raw   []byte // the offending line, for dead-letter or --skip-bad output
	Field string // JSON field, empty when the line is not a JSON object
	Err   error
}

// Error reads "line N: <field>: <reason>" (the FieldError carries the field).
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

// Reader reads events from a JSONL stream, one event per line. Blank lines
// are skipped. After a *LineError the reader can continue with the next line;
// that includes a line longer than MaxLineBytes, whose bytes are discarded.
type Reader struct {
	br   *bufio.Reader
	buf  []byte
	line int
	err  error // sticky read error of the underlying reader
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64*1024)}
}

// Line is the number of the line read last (1-based).
func (r *Reader) Line() int { return r.line }

// Next returns the next event, io.EOF at the end, a *LineError for a line
// that does not decode or is longer than MaxLineBytes (the stream stays
// usable; such a LineError has no Raw), or another error when the
// underlying reader fails.
func (r *Reader) Next() (Event, error) {
	for {
		raw, tooLong, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return Event{}, io.EOF
			}
			return Event{}, fmt.Errorf("read line %d: %w", r.line+1, err)
		}
		r.line++
		if tooLong {
			return Event{}, &LineError{Line: r.line, Err: fmt.Errorf("line longer than %d bytes", MaxLineBytes)}
		}
		if isBlank(raw) {
			continue
		}
		ev, err := Decode(raw)
		if err != nil {
			le := &LineError{Line: r.line, Raw: append([]byte(nil), raw...), Err: err}
			var fe *FieldError
			if errors.As(err, &fe) {
				le.Field = fe.Field
			}
			return Event{}, le
		}
		return ev, nil
	}
}

// readLine returns the next line without its "\n" or "\r\n", valid until the
// next call. A line over MaxLineBytes is read to its end but not kept:
// tooLong is set and line is empty. At the end of the stream it returns
// io.EOF (a last line without a newline is returned first).
func (r *Reader) readLine() (line []byte, tooLong bool, err error) {
	if r.err != nil {
		return nil, false, r.err
	}
	r.buf = r.buf[:0]
	read := false
	for {
		chunk, err := r.br.ReadSlice('\n')
		read = read || len(chunk) > 0
		if !tooLong {
			if len(r.buf)+len(chunk) > MaxLineBytes+2 { // room for "\r\n"
				tooLong, r.buf = true, r.buf[:0]
			} else {
				r.buf = append(r.buf, chunk...)
			}
		}
		switch {
		case err == nil:
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if !read {
				r.err = io.EOF
				return nil, false, io.EOF
			}
		default:
			r.err = err
			return nil, false, err
		}
		if tooLong {
			return nil, true, nil
		}
		line = bytes.TrimSuffix(r.buf, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > MaxLineBytes {
			return nil, true, nil
		}
		return line, false, nil
	}
}

func isBlank(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}

// Writer writes events as JSONL.
type Writer struct {
	w *bufio.Writer
}

// NewWriter returns a Writer over w. Call Flush when done.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write encodes and writes one event followed by a newline.
func (w *Writer) Write(e *Event) error {
	b, err := Encode(e)
	if err != nil {
		return err
	}
	if _, err := w.w.Write(b); err != nil {
		return fmt.Errorf("write event %q: %w", e.ID, err)
	}
	return w.w.WriteByte('\n')
}

// Flush writes buffered data to the underlying writer.
func (w *Writer) Flush() error { return w.w.Flush() }
