package actuate

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

// FuzzReadJournal: the journal reader keeps only valid entries, reports
// every other line as a *JournalLineError naming the file and a line that
// only grows, and what it keeps reads back unchanged, with nothing skipped,
// once written out again.
func FuzzReadJournal(f *testing.F) {
	e1 := `{"k":"00112233445566778899aabbccddeeff","exp":1100}`
	e2 := `{"k":"ffeeddccbbaa99887766554433221100","exp":-5}`
	f.Add([]byte(e1 + "\n" + e2 + "\n"))
	f.Add([]byte(e1 + "\n{\"k\":\"0123\x00garbage\n" + e2 + "\nnull\n" + e1 + "\n" + `{"k":"`))
	f.Add([]byte(e1 + "\r\n\r\n \n" + `{"k":"00112233445566778899AABBCCDDEEFF","exp":1}` + "\n"))
	f.Add([]byte(`{"k":"00112233445566778899aabbccddeeff","exp":"1"}` + "\n" + `{"k":"00112233445566778899aabbccddeeff","exp":1e3}`))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := bytes.Count(data, []byte("\n")) + 1
		var kept []journalLine
		skipped, err := readJournal(bytes.NewReader(data), "j.jsonl", func(l journalLine) { kept = append(kept, l) })
		if err != nil {
			t.Fatalf("error %v from a bytes.Reader", err)
		}
		if len(kept)+len(skipped) > lines {
			t.Fatalf("%d kept + %d skipped from %d lines", len(kept), len(skipped), lines)
		}
		last := 0
		for _, err := range skipped {
			le, ok := errors.AsType[*JournalLineError](err)
			if !ok || le.File != "j.jsonl" || le.Line <= last || le.Line > lines || le.Err == nil {
				t.Fatalf("skipped %#v after line %d", err, last)
			}
			last = le.Line
		}
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		for _, l := range kept {
			if !validJournalKey(l.K) {
				t.Fatalf("kept invalid key %q", l.K)
			}
			if err := enc.Encode(l); err != nil {
				t.Fatal(err)
			}
		}
		var again []journalLine
		skipped, err = readJournal(&out, "j.jsonl", func(l journalLine) { again = append(again, l) })
		if err != nil || len(skipped) != 0 || !reflect.DeepEqual(again, kept) {
			t.Fatalf("rewritten journal reads back %v, skipped %v, %v; want %v", again, skipped, err, kept)
		}
	})
}
