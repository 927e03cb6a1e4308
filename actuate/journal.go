package actuate

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"

	"github.com/rmsidecar/rmsidecar/policy"
)

// Journal remembers which hints each actuator delivered, so a restart that
// re-applies events (at-least-once) does not actuate the same decision
// twice while it is still in force.
type Journal interface {
	// Seen reports whether actuator delivered a hint with h's target and
	// content that has not expired at h.TS.
	Seen(actuator string, h *policy.Hint) bool
	// Record notes that actuator delivered h.
	Record(actuator string, h *policy.Hint) error
}

// journalKey identifies a decision: the actuator, the hint's target and
// content (policy.IdentityVersion 2).
func journalKey(actuator string, h *policy.Hint) string {
	return hashKey(actuator, h.Target(), h.Content())
}

func hashKey(actuator, target, content string) string {
	sum := sha256.Sum256([]byte(actuator + "\x00" + target + "\x00" + content))
	return hex.EncodeToString(sum[:16])
}

// MemoryJournal is a Journal that lives as long as the process.
type MemoryJournal struct {
	mu      sync.Mutex
	expires map[string]int64
	kept    int // entries left by the last prune
	// legacy holds entries a version 1 journal file wrote (keys of
	// legacyContentV1), honoured until they expire; see OpenFileJournal.
	legacy map[string]int64
}

// NewMemoryJournal returns an empty journal.
func NewMemoryJournal() *MemoryJournal { return &MemoryJournal{expires: map[string]int64{}} }

// Seen implements Journal.
func (j *MemoryJournal) Seen(actuator string, h *policy.Hint) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.expires[journalKey(actuator, h)] > h.TS {
		return true
	}
	return len(j.legacy) > 0 && j.legacy[legacyJournalKey(actuator, h)] > h.TS
}

// Record implements Journal.
func (j *MemoryJournal) Record(actuator string, h *policy.Hint) error {
	j.mu.Lock()
	j.record(journalKey(actuator, h), h)
	j.mu.Unlock()
	return nil
}

// pruneAt is the size at which record forgets expired entries.
const pruneAt = 1 << 16

// record keeps k until h expires, forgetting what expired before h (mu held).
func (j *MemoryJournal) record(k string, h *policy.Hint) {
	j.expires[k] = h.ExpiresTS
	if len(j.expires) < pruneAt || len(j.expires) < 2*j.kept {
		return
	}
	for key, exp := range j.expires {
		if exp <= h.TS {
			delete(j.expires, key)
		}
	}
	j.kept = len(j.expires)
}

// FileJournal is a Journal appended to a file: one JSON line per delivered
// hint, written (not fsynced) before the delivery is acknowledged, so a
// killed process keeps it; only a machine crash can lose the newest lines.
type FileJournal struct {
	MemoryJournal
	f *os.File

	// Skipped lists the lines OpenFileJournal could not read (each a
	// *JournalLineError naming the file and line), oldest first. They are
	// left out, and every valid entry around them is kept; the rewrite at
	// open drops them from the file, so a caller should log them.
	Skipped []error
}

// JournalLineError is a journal line that is not a valid entry: corrupt, or
// the torn last line of a process killed while writing.
type JournalLineError struct {
	File string
	Line int // 1-based
	Err  error
}

func (e *JournalLineError) Error() string {
	return fmt.Sprintf("actuation journal %s: line %d: %v", e.File, e.Line, e.Err)
}

func (e *JournalLineError) Unwrap() error { return e.Err }

// maxJournalLine bounds one journal line; an entry is about 60 bytes.
const maxJournalLine = 64 << 10

// readJournal calls keep for each valid entry of r in order and returns the
// lines it skipped (as *JournalLineError naming file), or the error of r.
func readJournal(r io.Reader, file string, keep func(journalLine)) (skipped []error, err error) {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		raw, tooLong, last, err := readJournalLine(br)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return skipped, nil
			}
			return skipped, fmt.Errorf("actuation journal %s: line %d: %w", file, line, err)
		}
		var l journalLine
		var bad error
		switch {
		case tooLong:
			bad = fmt.Errorf("longer than %d bytes", maxJournalLine)
		case len(bytes.TrimSpace(raw)) == 0:
			continue
		default:
			if err := json.Unmarshal(raw, &l); err != nil {
				bad = fmt.Errorf("not a journal entry: %w", err)
			} else if !validJournalKey(l.K) {
				bad = fmt.Errorf("not a journal entry: key %q is not 32 hex digits", l.K)
			}
		}
		if bad != nil {
			if last {
				bad = fmt.Errorf("torn last line (no newline: a kill while writing?): %w", bad)
			}
			skipped = append(skipped, &JournalLineError{File: file, Line: line, Err: bad})
			continue
		}
		keep(l)
	}
}

// readJournalLine reads one line; a line over maxJournalLine is read to its
// end but not kept. last reports a final line without a newline.
func readJournalLine(br *bufio.Reader) (raw []byte, tooLong, last bool, err error) {
	var buf []byte
	read := false
	for {
		chunk, err := br.ReadSlice('\n')
		read = read || len(chunk) > 0
		if !tooLong {
			if len(buf)+len(chunk) > maxJournalLine+1 {
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			return buf, tooLong, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
		case errors.Is(err, io.EOF) && read:
			return buf, tooLong, true, nil
		default:
			return nil, false, false, err
		}
	}
}

func validJournalKey(k string) bool {
	if len(k) != 32 {
		return false
	}
	for i := range len(k) {
		if c := k[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// journalLine is one entry of the file. V is the identity version of K:
// absent (0) in files written before identity version 2.
type journalLine struct {
	K   string `json:"k"`
	Exp int64  `json:"exp"`
	V   int    `json:"v,omitempty"`
}

// journalHorizon bounds how long after the newest expiry in the file an
// entry is kept at open: hints stay in force for minutes (engine TTLs), so
// anything older than the newest by an hour has surely expired.
const journalHorizon = int64(3_600_000)

// OpenFileJournal loads and then appends to path. Entries are kept until
// they expire in event time; at open the file is rewritten without
// duplicates and without entries older than the newest by journalHorizon.
// Lines that are not valid entries are skipped and listed in Skipped.
func OpenFileJournal(path string) (*FileJournal, error) {
	j := &FileJournal{MemoryJournal: MemoryJournal{expires: map[string]int64{}, legacy: map[string]int64{}}}
	type entry struct {
		k string
		v int
	}
	var order []entry
	if f, err := os.Open(path); err == nil {
		// A corrupt line, or the torn last line of a kill, is skipped and
		// reported; every valid entry before and after it counts.
		skipped, err := readJournal(f, path, func(l journalLine) {
			m := j.entries(l.V)
			if _, ok := m[l.K]; !ok {
				order = append(order, entry{l.K, l.V})
			}
			m[l.K] = max(m[l.K], l.Exp)
		})
		f.Close()
		if err != nil {
			return nil, err
		}
		j.Skipped = skipped
	} else if !os.IsNotExist(err) {
		return nil, fmt.Errorf("actuation journal %s: %w", path, err)
	}
	var newest int64
	for _, m := range []map[string]int64{j.expires, j.legacy} {
		for _, exp := range m {
			newest = max(newest, exp)
		}
	}
	order = slices.DeleteFunc(order, func(e entry) bool {
		if m := j.entries(e.v); m[e.k] < newest-journalHorizon {
			delete(m, e.k)
			return true
		}
		return false
	})
	tmp := path + ".tmp"
	out, err := os.Create(tmp)
	if err != nil {
		return nil, fmt.Errorf("actuation journal %s: %w", path, err)
	}
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	for _, e := range order {
		if err := enc.Encode(journalLine{K: e.k, Exp: j.entries(e.v)[e.k], V: e.v}); err != nil {
			out.Close()
			return nil, fmt.Errorf("actuation journal %s: %w", path, err)
		}
	}
	if err := errors.Join(w.Flush(), out.Sync(), out.Close()); err != nil {
		return nil, fmt.Errorf("actuation journal %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return nil, fmt.Errorf("actuation journal %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("actuation journal %s: %w", path, err)
	}
	j.f = f
	return j, nil
}

// entries is the map holding keys of identity version v: entries written
// before version 2 are kept apart, under their old keys.
func (j *FileJournal) entries(v int) map[string]int64 {
	if v < policy.IdentityVersion {
		return j.legacy
	}
	return j.expires
}

// Record implements Journal.
func (j *FileJournal) Record(actuator string, h *policy.Hint) error {
	k := journalKey(actuator, h)
	b, err := json.Marshal(journalLine{K: k, Exp: h.ExpiresTS, V: policy.IdentityVersion})
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.record(k, h)
	if _, err := j.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("actuation journal: %w", err)
	}
	return nil
}

// Close closes the file.
func (j *FileJournal) Close() error { return j.f.Close() }
