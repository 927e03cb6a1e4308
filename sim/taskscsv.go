package sim

import (
	"bufio"
	"encoding/csv"
	"io"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// tasksWriter writes Options.Tasks, one row per ended attempt, byte for
// byte as encoding/csv writes it (its quoting rules, '\n' line ends). A
// day has hundreds of thousands of rows of ids and numbers that need no
// quotes: those are appended straight into the buffer instead of being
// formatted into strings first and scanned field by field by csv.Writer
// (5 % of the FB-2009 day's CPU). A row with a field that needs quoting
// goes through a csv.Writer over the same buffer, so the order holds.
type tasksWriter struct {
	w   *bufio.Writer
	csv *csv.Writer // writes into w: csv.NewWriter keeps a *bufio.Writer it is given
	row []byte
	rec []string
}

func newTasksWriter(w io.Writer) *tasksWriter {
	b := bufio.NewWriter(w)
	return &tasksWriter{w: b, csv: csv.NewWriter(b)}
}

// Write writes a record through csv.Writer (the header).
func (w *tasksWriter) Write(record []string) error { return w.csv.Write(record) }

// Flush writes the buffered rows to the underlying writer.
func (w *tasksWriter) Flush() { w.csv.Flush() }

// Error is the first error a write or flush met.
func (w *tasksWriter) Error() error { return w.csv.Error() }

// attempt writes the row of attempt a, ended at now in state (see
// TasksCSVHeader).
func (w *tasksWriter) attempt(a *attempt, now int64, state string) error {
	t := a.task
	// An attempt id is "attempt_" + its task id after "task_" + "_" + a
	// number (launch), so a plain attempt id makes a "task_..." id plain.
	taskPlain := len(t.id) > len("task_") && t.id[:len("task_")] == "task_" && len(a.id) >= len(t.id)+4 &&
		a.id[len("attempt_"):len("attempt_")+len(t.id)-len("task_")] == t.id[len("task_"):]
	if csvNeedsQuotes(t.job.id) || !taskPlain && csvNeedsQuotes(t.id) || csvNeedsQuotes(a.id) || csvNeedsQuotes(string(t.kind)) ||
		csvNeedsQuotes(a.node.id) || csvNeedsQuotes(string(a.loc)) || csvNeedsQuotes(state) {
		w.rec = append(w.rec[:0], t.job.id, t.id, a.id, string(t.kind), a.node.id, strconv.FormatBool(a.spec), string(a.loc),
			strconv.FormatFloat(float64(a.startMS)/1000, 'f', -1, 64), strconv.FormatFloat(float64(now)/1000, 'f', -1, 64),
			state, strconv.FormatInt(a.fetched, 10))
		return w.csv.Write(w.rec)
	}
	// Booleans and numbers formatted this way never need quotes.
	b := append(w.row[:0], t.job.id...)
	b = append(b, ',')
	b = append(b, t.id...)
	b = append(b, ',')
	b = append(b, a.id...)
	b = append(b, ',')
	b = append(b, t.kind...)
	b = append(b, ',')
	b = append(b, a.node.id...)
	b = append(b, ',')
	b = strconv.AppendBool(b, a.spec)
	b = append(b, ',')
	b = append(b, a.loc...)
	b = append(b, ',')
	b = strconv.AppendFloat(b, float64(a.startMS)/1000, 'f', -1, 64)
	b = append(b, ',')
	b = strconv.AppendFloat(b, float64(now)/1000, 'f', -1, 64)
	b = append(b, ',')
	b = append(b, state...)
	b = append(b, ',')
	b = strconv.AppendInt(b, a.fetched, 10)
	b = append(b, '\n')
	w.row = b
	_, err := w.w.Write(b)
	return err
}

// csvNeedsQuotes is encoding/csv's rule with its default comma: a field
// is quoted when it holds a comma, a quote, CR or LF, starts with a
// space (unicode.IsSpace), or is `\.`; an empty field is not.
func csvNeedsQuotes(f string) bool {
	if f == "" {
		return false
	}
	if f == `\.` {
		return true
	}
	for i := 0; i < len(f); i++ {
		// '\n', '\r', '"' and ',' are all at most ',': ids are mostly
		// letters, digits and '_', which one comparison passes.
		if c := f[i]; c <= ',' && (c == '\n' || c == '\r' || c == '"' || c == ',') {
			return true
		}
	}
	r, _ := utf8.DecodeRuneInString(f)
	return unicode.IsSpace(r)
}
